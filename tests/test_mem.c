/* test_mem.c: workloads/common/hs_mem: the memory cgroup found from /proc/self/cgroup and
 * /proc/self/mountinfo (here fake ones over a fake cgroup tree: v2 and v1, limits set by an
 * ancestor, "max" for none, the in-use figure less inactive file cache), and the check's
 * refusal under a real RLIMIT_AS naming `ulimit -v`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "hs_error.h"
#include "hs_mem.h"

#define ROOT HS_TEST_TMP "/test_mem.d"

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void dirs(const char *const *paths, int n)
{
    for (int i = 0; i < n; i++)
        mkdir(paths[i], 0755);
}

/* v2: the process in /a/b; /a sets memory.max 8 GB, /a/b memory.high 6 GB ("max" elsewhere). */
static void cgroup_v2(void **state)
{
    (void)state;
    const char *d[] = {ROOT, ROOT "/v2", ROOT "/v2/a", ROOT "/v2/a/b"};
    dirs(d, 4);
    put(ROOT "/cgroup", "0::/a/b\n");
    put(ROOT "/mountinfo", "25 1 0:22 / " ROOT "/v2 rw,relatime - cgroup2 cgroup2 rw\n");
    put(ROOT "/v2/memory.max", "max\n");
    put(ROOT "/v2/a/memory.max", "8000000000\n");
    put(ROOT "/v2/a/b/memory.max", "max\n");
    put(ROOT "/v2/a/b/memory.high", "6000000000\n");
    put(ROOT "/v2/a/b/memory.current", "3000000000\n");
    put(ROOT "/v2/a/b/memory.stat", "anon 1000\nfile 2000000000\ninactive_file 1000000000\n");
    double limit, in_use;
    char which[512];
    assert_int_equal(hs_mem_cgroup(ROOT "/cgroup", ROOT "/mountinfo", &limit, &in_use, which,
                                   sizeof which), 0);
    assert_true(limit == 6e9);
    assert_true(in_use == 2e9);
    assert_string_equal(which, ROOT "/v2/a/b/memory.high");
    put(ROOT "/v2/a/b/memory.high", "max\n"); /* then the ancestor's */
    assert_int_equal(hs_mem_cgroup(ROOT "/cgroup", ROOT "/mountinfo", &limit, &in_use, which,
                                   sizeof which), 0);
    assert_true(limit == 8e9);
    assert_string_equal(which, ROOT "/v2/a/memory.max");
    put(ROOT "/v2/a/memory.max", "max\n"); /* none at all */
    assert_int_equal(hs_mem_cgroup(ROOT "/cgroup", ROOT "/mountinfo", &limit, &in_use, which,
                                   sizeof which), -1);
}

/* v1: the memory controller mounted with another beside it, its root a cgroup path of its own
 * (a container), 2^63 - 4096 meaning none. */
static void cgroup_v1(void **state)
{
    (void)state;
    const char *d[] = {ROOT, ROOT "/v1", ROOT "/v1/job"};
    dirs(d, 3);
    put(ROOT "/cgroup", "5:cpu,cpuacct:/x\n4:memory:/pod/job\n0::/\n");
    put(ROOT "/mountinfo",
        "30 1 0:30 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu,cpuacct\n"
        "31 1 0:31 /pod " ROOT "/v1 rw,nosuid - cgroup cgroup rw,memory\n");
    put(ROOT "/v1/memory.limit_in_bytes", "9223372036854771712\n");
    put(ROOT "/v1/job/memory.limit_in_bytes", "4000000000\n");
    put(ROOT "/v1/job/memory.usage_in_bytes", "500000000\n");
    put(ROOT "/v1/job/memory.stat", "cache 300000000\ntotal_inactive_file 100000000\n");
    double limit, in_use;
    char which[512];
    assert_int_equal(hs_mem_cgroup(ROOT "/cgroup", ROOT "/mountinfo", &limit, &in_use, which,
                                   sizeof which), 0);
    assert_true(limit == 4e9);
    assert_true(in_use == 4e8);
    assert_string_equal(which, ROOT "/v1/job/memory.limit_in_bytes");
}

/* The process's address space now (VmSize), in bytes: terabytes under AddressSanitizer. */
static double size_now(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kib = 0;
    assert_non_null(f);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmSize:", 7) == 0)
            kib = atof(line + 7);
    fclose(f);
    return kib * 1024;
}

/* Under RLIMIT_AS (64 GiB above what the process maps now), a need beyond it is refused naming
 * ulimit -v; one within it passes. */
static void address_limit(void **state)
{
    (void)state;
    struct rlimit old, rl;
    assert_int_equal(getrlimit(RLIMIT_AS, &old), 0);
    rl = old;
    rl.rlim_cur = (rlim_t)size_now() + ((rlim_t)64 << 30);
    assert_int_equal(setrlimit(RLIMIT_AS, &rl), 0);
    char err[HS_ERR_LEN];
    hs_mem_need small = {.address_bytes = 1e9, .data_bytes = 1e9, .resident_bytes = 1e6};
    hs_mem_need big = {.address_bytes = 80e9, .data_bytes = 80e9, .resident_bytes = 1e6};
    int small_status = hs_mem_check(&small, "x", "y", err);
    int big_status = hs_mem_check(&big, "simulating 9 GPUs", "advice", err);
    assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
    assert_int_equal(small_status, HS_OK);
    assert_int_equal(big_status, HS_EINPUT);
    assert_non_null(strstr(err, "simulating 9 GPUs needs about "));
    assert_non_null(strstr(err, " GB of address space; the address-space limit (ulimit -v) is "));
    assert_non_null(strstr(err, " GB: advice"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cgroup_v2),
        cmocka_unit_test(cgroup_v1),
        cmocka_unit_test(address_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
