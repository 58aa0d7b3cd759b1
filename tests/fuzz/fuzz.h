/* fuzz.h: what the fuzz harnesses of tests/fuzz share: the fuzzer's bytes as a file (for the
 * parsers that read a path) or as a command line (for the flag parsers).
 *
 * A harness is one file, fuzz_NAME.c, defining LLVMFuzzerTestOneInput for one parser; it is
 * built as a libFuzzer program (cmake -DHS_FUZZ=ON, clang) or, in every other build, with
 * replay.c, which runs it once on each file given (the regression inputs of tests/fuzz/NAME/).
 * A harness must not write anywhere but its own temp file, and must free what the parser
 * allocated (LeakSanitizer counts a leak as a crash). tests/fuzz/README.md has the recipe. */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_paths[2][512] __attribute__((unused)); /* this process's temp files, removed at exit */

static inline void fuzz_remove_files(void)
{
    for (int i = 0; i < 2; i++)
        if (fuzz_paths[i][0])
            unlink(fuzz_paths[i]);
}

/* The bytes as file number `which` (0 or 1) of this process, named ...<suffix> (some loaders
 * go by the name); its path, or NULL if it cannot be written. */
static inline const char *fuzz_file(int which, const uint8_t *data, size_t size,
                                    const char *suffix)
{
    if (!fuzz_paths[which][0]) {
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
        snprintf(fuzz_paths[which], sizeof fuzz_paths[which], "%s/hs-fuzz-%ld-%d%s",
                 dir && *dir ? dir : "/tmp", (long)getpid(), which, suffix);
        if (which == 0)
            atexit(fuzz_remove_files);
    }
    FILE *f = fopen(fuzz_paths[which], "wb");
    if (!f)
        return NULL;
    size_t wrote = fwrite(data, 1, size, f);
    return fclose(f) == 0 && wrote == size ? fuzz_paths[which] : NULL;
}

/* The bytes after the first `skip` as a NUL-terminated string in buf (cap bytes); NULL when
 * there are fewer bytes or too many (harnesses keep inputs short: parsers of one word). */
static inline const char *fuzz_text(const uint8_t *data, size_t size, size_t skip, char *buf,
                                    size_t cap)
{
    if (size < skip || size - skip >= cap)
        return NULL;
    memcpy(buf, data + skip, size - skip);
    buf[size - skip] = '\0';
    return buf;
}

/* The bytes as a command line: argv[0] = name, then one word per line (or NUL-separated);
 * the words live in *text (free it). Returns argc. */
static inline int fuzz_argv(const uint8_t *data, size_t size, const char *name, char **argv,
                            char **text)
{
    int argc = 0;
    *text = malloc(size + 1);
    if (!*text)
        return 0;
    memcpy(*text, data, size);
    (*text)[size] = '\0';
    argv[argc++] = (char *)name;
    char *word = *text;
    for (size_t i = 0; i <= size && argc < FUZZ_MAX_ARGS - 1; i++)
        if (i == size || (*text)[i] == '\n' || (*text)[i] == '\0') {
            (*text)[i] = '\0';
            argv[argc++] = word;
            word = *text + i + 1;
        }
    argv[argc] = NULL;
    return argc;
}

/* Whether a word asks for help (-h, -jh, --help, --he...): a flag harness skips such a line,
 * since the parsers print their usage for it and a harness must print nothing. */
static inline int fuzz_asks_help(const char *w)
{
    return w[0] == '-' && (w[1] == '-' ? w[2] == 'h' : !!strchr(w, 'h'));
}

/* fuzz_argv for a parser that prints its usage on -h: argc, or 0 (nothing to parse; *text
 * still to free) when a word asks for help. */
static inline int fuzz_flag_argv(const uint8_t *data, size_t size, const char *name, char **argv,
                                 char **text)
{
    int argc = fuzz_argv(data, size, name, argv, text);
    for (int i = 1; i < argc; i++)
        if (fuzz_asks_help(argv[i]))
            return 0;
    return argc;
}

#endif
