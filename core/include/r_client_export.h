/* SPDX-License-Identifier: MIT */
/* r_client_export.h - symbol export macro for the rclient library.
 *
 * RCLIENT_API marks every public function. The library is built with hidden
 * visibility, so only RCLIENT_API symbols are exported from librclient.so.
 * Windows consumers of the shared DLL outside CMake define RCLIENT_SHARED.
 */
#ifndef R_CLIENT_EXPORT_H
#define R_CLIENT_EXPORT_H

#if defined(_WIN32)
#  if defined(RCLIENT_BUILDING)
#    define RCLIENT_API __declspec(dllexport)
#  elif defined(RCLIENT_SHARED)
#    define RCLIENT_API __declspec(dllimport)
#  else
#    define RCLIENT_API
#  endif
#elif defined(__GNUC__) || defined(__clang__)
#  define RCLIENT_API __attribute__((visibility("default")))
#else
#  define RCLIENT_API
#endif

#endif /* R_CLIENT_EXPORT_H */
