/* replay.c: the main() of a fuzz harness when libFuzzer is not there (every build but
 * -DHS_FUZZ=ON): each file argument, or each file of a directory argument, is passed once to
 * LLVMFuzzerTestOneInput; arguments starting with '-' (libFuzzer's flags, e.g. -runs=0) are
 * ignored. So `fuzz_NAME -runs=0 tests/fuzz/NAME` is the regression run of its kept inputs in
 * both kinds of build. A crash is the test's failure. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* the harness (fuzz.h) */

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *data = malloc(cap);
    size_t got;
    while (data && (got = fread(data + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *bigger = realloc(data, cap *= 2);
            if (!bigger)
                free(data);
            data = bigger;
        }
    }
    fclose(f);
    if (!data)
        return 1;
    LLVMFuzzerTestOneInput(data, n);
    free(data);
    return 0;
}

static int run_dir(const char *dir, int *files)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort), bad = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        struct stat st;
        if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
            strcmp(names[i]->d_name, "README") != 0) {
            bad |= run_file(path);
            (*files)++;
        }
        free(names[i]);
    }
    free(names);
    return n < 0 ? 1 : bad;
}

int main(int argc, char **argv)
{
    int bad = 0, files = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (argv[i][0] == '-')
            continue;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            bad |= run_dir(argv[i], &files);
        } else {
            bad |= run_file(argv[i]);
            files++;
        }
    }
    printf("replay: %d inputs\n", files);
    return bad;
}
