/* Replays inputs through a fuzz target without libFuzzer: every file named on the
 * command line, or every file inside a named directory.  Each input is copied into a
 * buffer of exactly its size, so the sanitizers see any read past its end.  Fails when
 * it finds no input at all (a replay that ran nothing would pass unnoticed). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz_replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *all = malloc(cap);
    size_t n;
    while (all && (n = fread(all + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *more = realloc(all, cap *= 2);
            if (!more)
                free(all);
            all = more;
        }
    }
    fclose(f);
    if (!all) {
        fprintf(stderr, "fuzz_replay: out of memory reading %s\n", path);
        return -1;
    }
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(all);
        return -1;
    }
    memcpy(exact, all, len);
    free(all);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int count = 0, errors = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "fuzz_replay: no such file or directory: %s\n", argv[i]);
            errors++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            errors += replay_file(argv[i]) != 0;
            count++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            errors++;
            continue;
        }
        char **names = NULL;
        size_t n = 0, cap = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                char **more = realloc(names, cap * sizeof *names);
                if (!more)
                    abort();
                names = more;
            }
            size_t pl = strlen(argv[i]) + strlen(e->d_name) + 2;
            names[n] = malloc(pl);
            if (!names[n])
                abort();
            snprintf(names[n], pl, "%s/%s", argv[i], e->d_name);
            n++;
        }
        closedir(d);
        qsort(names, n, sizeof *names, cmp_names);
        for (size_t k = 0; k < n; k++) {
            if (stat(names[k], &st) == 0 && S_ISREG(st.st_mode)) {
                errors += replay_file(names[k]) != 0;
                count++;
            }
            free(names[k]);
        }
        free(names);
    }
    printf("%s: replayed %d inputs, %d unreadable\n", argv[0], count, errors);
    return count == 0 || errors ? 1 : 0;
}
