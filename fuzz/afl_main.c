/* SPDX-License-Identifier: MIT */
/* afl_main.c - AFL++ persistent-mode driver (afl-clang-fast; AFL++
 * docs/fuzzing_in_depth.md "persistent mode"): the test case arrives in
 * shared memory and LLVMFuzzerTestOneInput runs up to 10000 times per fork.
 * Built with a plain compiler (no __AFL_* macros) it reads one input from
 * stdin, so the driver itself stays testable anywhere. */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

#ifdef __AFL_FUZZ_TESTCASE_LEN

__AFL_FUZZ_INIT();

int main(int argc, char **argv) {
    if (LLVMFuzzerInitialize != NULL) {
        LLVMFuzzerInitialize(&argc, &argv);
    }
    __AFL_INIT();
    unsigned char *buf = __AFL_FUZZ_TESTCASE_BUF; /* after __AFL_INIT, before the loop */
    while (__AFL_LOOP(10000)) {
        int len = __AFL_FUZZ_TESTCASE_LEN;
        LLVMFuzzerTestOneInput(buf, (size_t)len);
    }
    return 0;
}

#else

int main(int argc, char **argv) {
    if (LLVMFuzzerInitialize != NULL) {
        LLVMFuzzerInitialize(&argc, &argv);
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    ssize_t got;
    while (buf != NULL && (got = read(0, buf + len, cap - len)) > 0) {
        len += (size_t)got;
        if (len == cap) {
            break; /* inputs are capped at 64 KiB */
        }
    }
    if (buf == NULL) {
        return 2;
    }
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

#endif
