/* SPDX-License-Identifier: MIT */
/* vec_files.c - which vector files a bare `rl-testbed vectors` runs. */
#define _POSIX_C_SOURCE 200809L

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vec_json.h"
#include "vec_runner.h"

#ifndef RL_SOURCE_DIR
#define RL_SOURCE_DIR "."
#endif
/* The installed data directory (cmake/suite-data.cmake), and the same
 * directory relative to the installed binary's own directory. */
#ifndef RL_DATA_DIR
#define RL_DATA_DIR "/usr/local/share/rl-testbed"
#endif
#ifndef RL_DATA_DIR_FROM_BIN
#define RL_DATA_DIR_FROM_BIN "../share/rl-testbed"
#endif

bool vec_file_list_add(vec_file_list_t *list, const char *path, bool no_match)
{
    if (list->n == list->cap) {
        size_t cap = list->cap == 0 ? 16 : list->cap * 2;
        vec_file_t *grown = realloc(list->files, cap * sizeof *grown);
        if (grown == NULL)
            return false;
        list->files = grown;
        list->cap = cap;
    }
    char *copy = malloc(strlen(path) + 1);
    if (copy == NULL)
        return false;
    strcpy(copy, path);
    list->files[list->n].path = copy;
    list->files[list->n].no_match = no_match;
    list->n++;
    return true;
}

void vec_file_list_free(vec_file_list_t *list)
{
    for (size_t i = 0; i < list->n; i++)
        free(list->files[i].path);
    free(list->files);
    memset(list, 0, sizeof *list);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Add the sorted matches of pattern; a required pattern without matches is
 * added as a no_match entry so the run fails visibly. */
bool vec_add_glob(vec_file_list_t *list, const char *pattern, bool required)
{
    glob_t g;
    memset(&g, 0, sizeof g);
    int rc = glob(pattern, 0, NULL, &g); /* glob sorts its matches */
    bool ok = true;
    if (rc == 0) {
        for (size_t i = 0; ok && i < g.gl_pathc; i++)
            ok = vec_file_list_add(list, g.gl_pathv[i], false);
    } else if (required) {
        ok = vec_file_list_add(list, pattern, true);
    }
    globfree(&g);
    return ok;
}

static bool has_vectors(const char *dir)
{
    char path[4096];
    vec_format(path, sizeof path, "%s/vectors", dir);
    return is_dir(path);
}

/* <directory of the running executable>/RL_DATA_DIR_FROM_BIN, or NULL. */
static const char *data_dir_beside_binary(void)
{
    static char dir[4096];
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    /* The binary's directory, then one component up per leading "../" of
     * the relative path, so reports show <prefix>/share/... not bin/../share. */
    const char *rel = RL_DATA_DIR_FROM_BIN;
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return NULL;
    *slash = '\0';
    while (strncmp(rel, "../", 3) == 0 && (slash = strrchr(exe, '/')) != NULL && slash != exe) {
        *slash = '\0';
        rel += 3;
    }
    vec_format(dir, sizeof dir, "%s/%s", exe, rel);
    return has_vectors(dir) ? dir : NULL;
}

const char *vec_default_base(void)
{
    /* Keep paths short when running from the tree: "vectors/x.json". */
    if (is_dir("vectors"))
        return "";
    const char *env = getenv("RL_TESTBED_DATA");
    if (env != NULL && env[0] != '\0')
        return env;
    const char *installed = data_dir_beside_binary();
    if (installed != NULL)
        return installed;
    if (has_vectors(RL_SOURCE_DIR))
        return RL_SOURCE_DIR;
    return RL_DATA_DIR;
}

bool vec_default_files(vec_file_list_t *out)
{
    const char *prefix = vec_default_base();
    const char *sep = prefix[0] != '\0' ? "/" : "";
    char pattern[4096];
    vec_format(pattern, sizeof pattern, "%s%svectors/*.json", prefix, sep);
    if (!vec_add_glob(out, pattern, true))
        return false;
    /* An installed data directory holds its copy of the outside answers in external/. */
    vec_format(pattern, sizeof pattern, "%s%sexternal", prefix, sep);
    if (prefix[0] != '\0' && is_dir(pattern)) {
        vec_format(pattern, sizeof pattern, "%s%sexternal/*.json", prefix, sep);
        return vec_add_glob(out, pattern, false);
    }
    vec_format(pattern, sizeof pattern, "%s%s../shared/external", prefix, sep);
    if (!is_dir(pattern)) {
        /* Not an error (a checkout without ../shared), but never silent. */
        fprintf(stderr, "rl-testbed: note: %s not found: outside known answers not run\n", pattern);
        return true;
    }
    vec_format(pattern, sizeof pattern, "%s%s../shared/external/*.json", prefix, sep);
    return vec_add_glob(out, pattern, false);
}
