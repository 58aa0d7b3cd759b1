/* replay.c: the main() of a fuzz harness when libFuzzer is not there (every build but
 * -DHS_FUZZ=ON): each file argument, or each file of a directory argument, is passed once to
 * LLVMFuzzerTestOneInput; arguments starting with '-' (libFuzzer's flags, e.g. -runs=0) are
 * ignored. So `fuzz_NAME -runs=0 tests/fuzz/NAME` is the regression run of its kept inputs in
 * both kinds of build. A crash is the test's failure.
 *
 * `-mutations=N` then fuzzes for a fixed budget without libFuzzer (ctest's fuzzrun_NAME, so
 * that every build's suite keeps fuzzing each parser a little): N inputs made from the kept
 * ones by a few random edits each (a bit flipped, a byte set to one that means something to a
 * parser, bytes inserted, deleted, repeated or spliced from another input, a cut), from a
 * fixed seed (`-seed=S`, default 1) so that a run is reproducible. An input that crashes is
 * written to fuzz-crash-NAME in the working folder before the process dies by the signal: run
 * `fuzz_NAME fuzz-crash-NAME` to reproduce, then keep it in tests/fuzz/NAME/. */
#include <dirent.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_grow.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* the harness (fuzz.h) */

/* The kept inputs, for mutating. */
typedef struct {
    uint8_t *data;
    size_t size;
} input;

static input *kept;
static int n_kept;
static size_t cap_kept;
static bool keeping; /* -mutations: keep each input read */

/* The input being run, for the crash handler (written before each run). */
static const uint8_t *current;
static size_t current_size;
static char crash_path[256];

static void on_crash(int sig)
{
    int fd = open(crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        size_t done = 0;
        while (done < current_size) {
            ssize_t w = write(fd, current + done, current_size - done);
            if (w <= 0)
                break;
            done += (size_t)w;
        }
        close(fd);
    }
    static const char said[] = "replay: a crash; its input is in ";
    (void)!write(2, said, sizeof said - 1);
    (void)!write(2, crash_path, strlen(crash_path));
    (void)!write(2, "\n", 1);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void run_one(const uint8_t *data, size_t size)
{
    current = data, current_size = size;
    LLVMFuzzerTestOneInput(data, size);
}

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return 1;
    }
    size_t cap = 0, n = 0, got;
    uint8_t *data = NULL;
    bool room; /* at least 4 KB free for each read */
    while ((room = hs_grow((void **)&data, &cap, n + 4096, 1)) &&
           (got = fread(data + n, 1, cap - n, f)) > 0)
        n += got;
    fclose(f);
    if (!room) {
        free(data);
        return 1;
    }
    run_one(data, n);
    if (keeping && !hs_grow((void **)&kept, &cap_kept, (size_t)n_kept + 1, sizeof *kept)) {
        free(data);
        return 1;
    }
    if (keeping)
        kept[n_kept++] = (input){data, n};
    else
        free(data);
    return 0;
}

/* ------------------------------------------------------------------ mutations */

static uint64_t rng_state;

static uint64_t rng(void) /* xorshift64*: fixed by the seed, the same on every machine */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static size_t below(size_t n) { return n ? (size_t)(rng() % n) : 0; }

/* Bytes that mean something to one of the parsers: separators, digits, signs, XML. */
static const char meaningful[] = "\0\n\r\t ,=|:;x-+./<>\"'&#09eE%k";

/* One edit of buf (size *n, room for cap). */
static void mutate_once(uint8_t *buf, size_t *n, size_t cap)
{
    const input *other = &kept[below((size_t)n_kept)];
    size_t at = below(*n + 1), len = 1 + below(8);
    switch (below(7)) {
    case 0: /* flip a bit */
        if (*n)
            buf[below(*n)] ^= (uint8_t)(1u << below(8));
        break;
    case 1: /* a meaningful byte */
        if (*n)
            buf[below(*n)] = (uint8_t)meaningful[below(sizeof meaningful - 1)];
        break;
    case 2: /* insert bytes */
        if (*n + len <= cap) {
            memmove(buf + at + len, buf + at, *n - at);
            for (size_t i = 0; i < len; i++) {
                uint8_t word = (uint8_t)meaningful[below(sizeof meaningful - 1)];
                buf[at + i] = rng() & 1 ? (uint8_t)rng() : word;
            }
            *n += len;
        }
        break;
    case 3: /* delete bytes */
        if (at < *n) {
            len = len > *n - at ? *n - at : len;
            memmove(buf + at, buf + at + len, *n - at - len);
            *n -= len;
        }
        break;
    case 4: /* repeat a piece */
        if (at < *n) {
            len = len * 8 > *n - at ? *n - at : len * 8;
            if (*n + len <= cap) {
                memmove(buf + at + len, buf + at, *n - at);
                *n += len;
            }
        }
        break;
    case 5: /* splice another input's piece */
        if (other->size) {
            size_t from = below(other->size);
            len = 1 + below(other->size - from);
            if (*n + len <= cap) {
                memmove(buf + at + len, buf + at, *n - at);
                memcpy(buf + at, other->data + from, len);
                *n += len;
            }
        }
        break;
    default: /* cut the end */
        *n = at;
        break;
    }
}

static int mutate(long runs)
{
    if (n_kept == 0) {
        fprintf(stderr, "replay: -mutations needs kept inputs\n");
        return 1;
    }
    size_t cap = 1 << 16;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return 1;
    for (long r = 0; r < runs; r++) {
        const input *in = &kept[below((size_t)n_kept)];
        size_t n = in->size < cap / 2 ? in->size : cap / 2;
        memcpy(buf, in->data, n);
        for (int edits = 1 + (int)below(4); edits > 0; edits--)
            mutate_once(buf, &n, cap);
        uint8_t *copy = malloc(n ? n : 1); /* exactly n bytes: overreads stay visible */
        if (!copy)
            break;
        memcpy(copy, buf, n);
        run_one(copy, n);
        free(copy);
    }
    free(buf);
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
    long runs = 0;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "-mutations=", 11))
            runs = strtol(argv[i] + 11, NULL, 10);
        else if (!strncmp(argv[i], "-seed=", 6))
            seed = strtoull(argv[i] + 6, NULL, 10);
    }
    keeping = runs > 0;
    rng_state = seed ? seed : 1;
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    snprintf(crash_path, sizeof crash_path, "fuzz-crash-%s", name);
    int caught[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
        signal(caught[i], on_crash);
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
    if (runs > 0 && !bad)
        bad |= mutate(runs);
    printf("replay: %d inputs, %ld mutated (seed %llu)\n", files, runs, seed);
    for (int i = 0; i < n_kept; i++)
        free(kept[i].data);
    free(kept);
    return bad;
}
