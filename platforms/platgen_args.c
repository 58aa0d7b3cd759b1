/* platgen_args.c: the command line of `hybridsim platform` (platgen.h pg_parse_args, pg_main):
 * the preset and the GPU first, wherever they are, then every other flag through the table of
 * platgen_flags.c, and --help with the preset's defaults. */
#include "platgen_int.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "device.h"
#include "hs_error.h"

/* Help with the defaults of `preset` (the preset given before --help, else abci). */
static void usage(FILE *o, const pg_params *d, const char *preset)
{
    char def[64];
    fputs("usage: hybridsim platform [--preset abci|abci-achieved|abci-built|dgx1|nvswitch-ndr]\n"
          "                          [--FLAG VALUE ...] [-o FILE.xml]\n"
          "Writes a SimGrid platform: nodes of GPUs joined by NVLink (all pairs, the DGX-1V's\n"
          "hybrid cube mesh, an NVSwitch, bridged pairs, or none: PCIe boards), PCIe switches\n"
          "with their NICs, and a 3-level fat tree (leaf groups, racks, spine). Without -o,\n"
          "writes to stdout. Values take units (SI when bare): times 9us 110ns 3ms, bandwidths\n"
          "50GBps 100Gbps (bits), sizes 16GB 16GiB, speeds 7.8Tf. Flags override the preset in\n"
          "any order; two flags that set one quantity (--nic-type and --nic-bw, ...) cannot\n"
          "both be given, nor a flag that changes nothing (--rack-oversub on one rack, ...).\n"
          "The machines of the measured runs (DGX-1, DGX-2, DGX A100, PCIe servers) are gen:\n"
          "specs in experiments/validation/systems.tsv. ",
          o);
    fprintf(o, "Defaults shown are the %s preset's\n(`hybridsim platform --preset NAME --help` "
            "shows another's).\n\n", preset);
    fprintf(o, "  %-24s %-12s %s\n", "--preset NAME", preset,
            "abci, abci-achieved, abci-built, dgx1 or nvswitch-ndr (README: sources)");
    for (size_t i = 0; i < pg_n_flags; i++) {
        char name[64];
        snprintf(name, sizeof name, "--%s", pg_flags[i].name);
        pg__show_default(&pg_flags[i], d, def, sizeof def);
        fprintf(o, "  %-24s %-12s %s\n", name, def, pg_flags[i].help);
    }
    fprintf(o, "  %-24s %-12s %s\n", "-o, --output FILE", "stdout",
            "write to FILE (a temp file renamed into place)");
    fprintf(o, "  %-24s %-12s %s\n", "-h, --help", "", "print this help");
    char names[256];
    dv_names(names, sizeof names);
    fprintf(o, "\nGPU devices (--gpu; platforms/README.md gives their sources):\n  %s\n", names);
}

/* Whether word is one of the command's flags (-o, -h, --anything): a platform value never
 * starts with "--", and a negative number ("-3") stays a value to be refused as one. */
static bool is_flag_word(const char *word)
{
    return strcmp(word, "-o") == 0 || strcmp(word, "-h") == 0 ||
           (strncmp(word, "--", 2) == 0 && word[2] != '\0');
}

/* A flag's value missing: none left, or the next word is a flag ("--nodes -o x.xml"), which
 * would otherwise be taken for it and surface as a puzzle later ("unexpected argument"). */
static int no_value(const char *flag, int argc, char **argv, int i, char *err)
{
    if (i + 1 < argc)
        return hs_fail(err, HS_EINPUT, "%s needs a value (the next word, '%s', is a flag)", flag,
                       argv[i + 1]);
    return hs_fail(err, HS_EINPUT, "%s: needs a value", flag);
}

/* Split "--name=value" or "--name value" (consuming argv[i+1]); -1 when the value is missing
 * (no_value says why). */
static int flag_value(int argc, char **argv, int *i, char *name, size_t len, const char **value)
{
    const char *arg = argv[*i] + 2;
    const char *eq = strchr(arg, '=');
    if (eq) {
        snprintf(name, len, "%.*s", (int)(eq - arg), arg);
        *value = eq + 1;
        return 0;
    }
    snprintf(name, len, "%s", arg);
    if (*i + 1 >= argc || is_flag_word(argv[*i + 1]))
        return -1;
    *value = argv[++*i];
    return 0;
}

/* The value of `--NAME V` or `--NAME=V` wherever it is; NULL if absent; given twice refused,
 * as every other flag is. */
static int find_early(int argc, char **argv, const char *flag, const char **value, char *err)
{
    size_t n = strlen(flag);
    char name[64];
    *value = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (strncmp(argv[i], "--", 2) != 0 || strncmp(argv[i] + 2, flag, n) != 0 ||
            (argv[i][2 + n] != '\0' && argv[i][2 + n] != '='))
            continue;
        if (flag_value(argc, argv, &i, name, sizeof name, &v) != 0)
            return no_value(argv[i], argc, argv, i, err);
        if (*value)
            return hs_fail(err, HS_EINPUT, "--%s is given twice", flag);
        *value = v;
    }
    return HS_OK;
}

/* The preset, then the GPU, wherever they are, so that flags override them in any order. */
static int apply_early(int argc, char **argv, pg_params *p, const char **preset, char *err)
{
    const char *gpu;
    int rc = find_early(argc, argv, "preset", preset, err);
    if (rc == HS_OK && *preset)
        rc = pg_preset(*preset, p, err);
    if (rc == HS_OK)
        rc = find_early(argc, argv, "gpu", &gpu, err);
    if (rc == HS_OK && gpu)
        rc = pg__set_device(gpu, p, err);
    if (!*preset)
        *preset = "abci";
    return rc;
}

int pg_parse_args(int argc, char **argv, pg_params *p, const char **out, int *help, char *err)
{
    const char *preset;
    unsigned char given[PG_MAX_FLAGS] = {0};
    char name[64];
    const char *value;
    int rc;
    pg_abci(p);
    *out = NULL;
    *help = 0;
    for (int i = 1; i < argc; i++)
        *help |= strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0;
    if ((rc = apply_early(argc, argv, p, &preset, err)) || *help)
        return rc;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0) {
            if (i + 1 >= argc)
                return hs_fail(err, HS_EINPUT, "%s: needs a file name", arg);
            if (is_flag_word(argv[i + 1]))
                return no_value(arg, argc, argv, i, err);
            if (*out)
                return hs_fail(err, HS_EINPUT, "-o is given twice");
            *out = argv[++i];
            continue;
        }
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
            return hs_fail(err, HS_EINPUT, "platform: unexpected argument '%s' (see hybridsim "
                           "platform --help)", arg);
        if (flag_value(argc, argv, &i, name, sizeof name, &value) != 0)
            return no_value(arg, argc, argv, i, err);
        if (strcmp(name, "output") == 0 && *out)
            return hs_fail(err, HS_EINPUT, "-o is given twice");
        if (strcmp(name, "output") == 0) {
            *out = value;
            continue;
        }
        if (strcmp(name, "preset") == 0 || strcmp(name, "gpu") == 0)
            continue; /* applied first */
        const pg_flag *f = pg__find_flag(name);
        if (!f)
            return hs_fail(err, HS_EINPUT, "platform: unknown flag '--%s' (see hybridsim "
                           "platform --help)", name);
        if (given[f - pg_flags])
            return hs_fail(err, HS_EINPUT, "--%s is given twice", name);
        if ((rc = pg__set_flag(f, value, p, err)))
            return rc;
        given[f - pg_flags] = 1;
    }
    return pg__check_given(given, p, err);
}

int pg_main(int argc, char **argv, char *err)
{
    pg_params p;
    const char *out, *preset;
    int help, rc = pg_parse_args(argc, argv, &p, &out, &help, err);
    if (rc)
        return rc;
    if (help) {
        /* the preset again, for usage's title (pg_parse_args applied it already) */
        if ((rc = find_early(argc, argv, "preset", &preset, err)))
            return rc;
        usage(stdout, &p, preset ? preset : "abci");
        return HS_OK;
    }
    if (out)
        return pg_write_file(&p, out, err);
    return pg_write(&p, stdout, err);
}
