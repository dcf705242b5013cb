/* SPDX-License-Identifier: MIT */
/* replay_main.c - plain replay driver: runs every file given, and every file
 * under every directory given (recursively, in name order, hidden files
 * skipped), through the harness's LLVMFuzzerTestOneInput once. Builds with
 * any C compiler; CI runs it over fuzz/corpus/<harness>/ and
 * fuzz/regressions/<harness>/ under ASan+UBSan (ctest -L fuzz-replay).
 *
 * Exit status: 0 when every input ran (a failing input aborts), 2 on a usage
 * error or an unreadable path. Options starting with '-' are ignored, so
 * libFuzzer-style command lines work unchanged. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static size_t n_inputs;

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
        return 2;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    size_t got = 0;
    while (buf != NULL && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *grown = realloc(buf, cap * 2);
            if (grown == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (buf == NULL || bad) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(buf);
        return 2;
    }
    /* Named first, so a crash report says which input it was. */
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
    /* An exact-size copy: the harness's own copy is exact-size too. */
    uint8_t *exact = malloc(len > 0 ? len : 1);
    if (exact == NULL) {
        free(buf);
        return 2;
    }
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    n_inputs++;
    return 0;
}

static int visible(const struct dirent *e) {
    return e->d_name[0] != '.';
}

static int run_path(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return 2;
    }
    if (!S_ISDIR(st.st_mode)) {
        return run_file(path);
    }
    struct dirent **names = NULL;
    int n = scandir(path, &names, visible, alphasort);
    if (n < 0) {
        fprintf(stderr, "replay: cannot list %s: %s\n", path, strerror(errno));
        return 2;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        size_t need = strlen(path) + strlen(names[i]->d_name) + 2;
        char *child = malloc(need);
        if (child == NULL) {
            rc = 2;
        } else {
            snprintf(child, need, "%s/%s", path, names[i]->d_name);
            int r = run_path(child);
            rc = r != 0 ? r : rc;
            free(child);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
        return 2;
    }
    if (LLVMFuzzerInitialize != NULL) {
        LLVMFuzzerInitialize(&argc, &argv);
    }
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') {
            continue;
        }
        int r = run_path(argv[i]);
        rc = r != 0 ? r : rc;
    }
    printf("replay: %zu inputs ran\n", n_inputs);
    return rc;
}
