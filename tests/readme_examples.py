#!/usr/bin/env python3
"""readme_examples.py: every README's examples run, and every README's links resolve.

Conventions (tests/README.md, "README examples"):
- A fenced block holding lines that start with `$ ` is an example: each `$ COMMAND` line (a
  trailing `\\` continues it on the next line) is run from a scratch folder that mirrors the
  repository root (a symbolic link per top-level entry, so `tests/...` and `workloads/...`
  resolve and files the commands write stay out of the tree; one folder per README, so a block
  may use a file an earlier block of the same README wrote; READMEs are checked side by side,
  -j at once). The lines after it, up to the next
  `$ ` line or the end of the block, are its expected output: stdout when it exits 0, stderr
  otherwise; a line `...` stands for any number of lines; every other line must be equal
  (trailing blanks aside). `../shared` beside the scratch folder is the repository's, and its
  `build` the build folder of the hybridsim under test (a script that builds a target there,
  experiments/compute/fit.sh, finds it built, as in a checkout).
- `hybridsim` and `build/hybridsim` are the built binary; `experiments/...` scripts and
  `/usr/bin/python3 experiments/...` run as written, and so does `cut` (to show a column of a
  CSV an earlier command wrote). Any other program is refused: show it
  without the `$ ` prompt, or mark the block.
- A command that exits 77 (the tests' "skipped": ../shared or a package is missing) is reported
  as skipped, not failed.
- `<!-- not run: REASON -->` on the line before a block skips it (printed as skipped, with the
  reason): for commands too slow for this test or that need what a test machine may lack.
- `<!-- needs: MODULE -->` on the line before a block skips it when Debian's /usr/bin/python3
  cannot import MODULE (the importer's examples need PyTorch).
- `<!-- file: PATH -->` on the line before a block says the block is an excerpt of PATH
  (relative to the repository root), compared the same way (`...` elides).
- Every Markdown link or image `[text](target)` whose target is not a URL or an anchor must name
  an existing file or folder, relative to the README.
- `--max-gpus N` skips (printed as skipped) every hybridsim command that simulates more than N
  GPUs (gpus_of: -g, --gpus, --max-gpus, a --job's g= or gpus=; `analytic`, `platform` and
  `sweep -m analytic` simulate nothing), the rest of its block running: the sanitized build's
  e2e_readme runs the smaller examples, the plain one all of them. (A later command that reads a
  file a skipped one would have written fails: no example's does.)

Usage: readme_examples.py [--hybridsim PATH] [--root DIR] [-j N] [--max-gpus N] [README.md ...]
Default READMEs: every README.md git tracks under the root. Exit 0 when all pass, 1 otherwise.
"""
import argparse
import concurrent.futures
import os
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import time

FENCE = re.compile(r"^(```|~~~)")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(.+?)\s*-->\s*$")
NEEDS = re.compile(r"^<!--\s*needs:\s*([A-Za-z0-9_.]+)\s*-->\s*$")
FROM_FILE = re.compile(r"^<!--\s*file:\s*(\S+)\s*-->\s*$")
TIMEOUT_S = 120


def blocks(lines):
    """(first line number, marker line before the fence, body lines) of each fenced block."""
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, marker = i, lines[i - 1].strip() if i > 0 else ""
        j = i + 1
        while j < len(lines) and not lines[j].startswith(m.group(1)):
            j += 1
        out.append((start + 1, marker, lines[i + 1:j]))
        i = j + 1
    return out


def commands(body):
    """[(command text, expected lines)] of a block's `$ ` lines."""
    out, k = [], 0
    while k < len(body):
        if not body[k].startswith("$ "):
            k += 1
            continue
        text = body[k][2:]
        while text.endswith("\\") and k + 1 < len(body):
            k += 1
            text = text[:-1] + " " + body[k].strip()
        k += 1
        expected = []
        while k < len(body) and not body[k].startswith("$ "):
            expected.append(body[k])
            k += 1
        out.append((text.strip(), expected))
    return out


def matches(expected, actual):
    """Whether actual lines fit expected lines, where a `...` line elides any number."""
    expected = [e.rstrip() for e in expected]
    actual = [a.rstrip() for a in actual]
    while expected and expected[-1] == "":
        expected.pop()
    while actual and actual[-1] == "":
        actual.pop()
    memo = {}

    def fit(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(expected):
            ok = j == len(actual)
        elif expected[i].strip() == "...":
            ok = any(fit(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            ok = j < len(actual) and expected[i] == actual[j] and fit(i + 1, j + 1)
        memo[(i, j)] = ok
        return ok

    return fit(0, 0)


def first_difference(expected, actual):
    """A short description of where the two part, for the failure message."""
    exp = [e.rstrip() for e in expected if e.strip() != "..."]
    act = [a.rstrip() for a in actual]
    missing = [e for e in exp if e not in act]
    if missing:
        return "not in the output: %r" % missing[0]
    return "lines out of order, or output beyond what the block shows"


def argv_of(text, hybridsim):
    """The argument vector of an example's command, or None for a program not allowed."""
    argv = shlex.split(text)
    if not argv:
        return None
    if argv[0] in ("hybridsim", "build/hybridsim"):
        return [hybridsim] + argv[1:]
    if argv[0].startswith("experiments/") or argv[0] == "cut":
        return argv
    if argv[0] in ("/usr/bin/python3", "python3") and len(argv) > 1 and \
            argv[1].startswith("experiments/"):
        return argv
    return None


def gpus_of(text):
    """The most GPUs a hybridsim command simulates, as its flags say (0: none said, or it
    simulates nothing): the largest number given to -g, --gpus or --max-gpus (a sweep's list
    included), the sum of its --job's g= (or the GPUs their gpus= ranges list)."""
    argv = shlex.split(text)
    if len(argv) < 2 or argv[0] not in ("hybridsim", "build/hybridsim") or \
            argv[1] in ("analytic", "platform"):
        return 0
    if argv[1] == "sweep" and re.search(r"(^| )(-m|--mode)[ =]analytic( |$)", text):
        return 0
    most, jobs = 0, 0
    for flag, value in zip(argv, argv[1:] + [""]):
        name, eq, inline = flag.partition("=")
        if eq and name.startswith("--"):
            flag, value = name, inline
        elif flag.startswith("-g") and len(flag) > 2 and not flag.startswith("--"):
            flag, value = "-g", flag[2:]
        if flag in ("-g", "--gpus", "--max-gpus"):
            most = max([most] + [int(n) for n in re.findall(r"\d+", value)])
        elif flag == "--job":
            g = re.search(r"(?:^|,)g=(\d+)", value)
            ranges = re.search(r"(?:^|,)gpus=([0-9+-]+)", value)
            if g:
                jobs += int(g.group(1))
            elif ranges:
                for r in ranges.group(1).split("+"):
                    lo, _, hi = r.partition("-")
                    jobs += int(hi or lo) - int(lo) + 1 if lo else 0
    return max(most, jobs)


def mirror(root, build):
    """A scratch folder with a symbolic link to every top-level entry of root, and a `shared`
    beside it standing for root's ../shared (the reference files some scripts read); `build`
    links to the build folder of the hybridsim under test when it has one (its CMakeCache.txt),
    so that a script building a target there (experiments/compute/fit.sh) finds it built, as
    in a checkout, instead of configuring and compiling a new build in the scratch folder."""
    parent = tempfile.mkdtemp(prefix="readme-examples-")
    work = os.path.join(parent, "repo")
    os.mkdir(work)
    shared = os.path.join(os.path.dirname(root), "shared")
    if os.path.exists(shared):
        os.symlink(os.path.realpath(shared), os.path.join(parent, "shared"))
    for name in os.listdir(root):
        if name not in ("build", ".git"):
            os.symlink(os.path.join(root, name), os.path.join(work, name))
    if build:
        os.symlink(build, os.path.join(work, "build"))
    return work


def check_links(path, lines, root, report):
    folder = os.path.dirname(path)
    in_fence = False
    for n, line in enumerate(lines, 1):
        if FENCE.match(line):
            in_fence = not in_fence
        if in_fence:
            continue
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):  # not inside code spans
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            file_part = target.split("#")[0]
            if not os.path.exists(os.path.normpath(os.path.join(folder, file_part))):
                report("%s:%d: link to %s: no such file" % (os.path.relpath(path, root), n,
                                                             target))


def check_readme(path, root, hybridsim, env, max_gpus=None):
    """Check one README: (the lines to print, the problems, the counts). Run in a worker process
    of its own (main), one README at a time, so its CPU figures are its commands' alone."""
    said, problems = [], []
    counts = {"commands": 0, "skipped": 0, "skipped_commands": 0, "files": 0}

    def report(message):
        problems.append(message)
        said.append("FAIL " + message)

    rel = os.path.relpath(path, root)
    lines = open(path, encoding="utf-8").read().split("\n")
    check_links(path, lines, root, report)
    work = None
    for line_no, marker, body in blocks(lines):
        where = "%s:%d" % (rel, line_no)
        skip = NOT_RUN.match(marker)
        from_file = FROM_FILE.match(marker)
        if from_file:
            counts["files"] += 1
            source = os.path.join(root, from_file.group(1))
            if not os.path.isfile(source):
                report("%s: excerpt of %s: no such file" % (where, from_file.group(1)))
            elif not matches(body, open(source, encoding="utf-8").read().split("\n")):
                actual = open(source, encoding="utf-8").read().split("\n")
                report("%s: not an excerpt of %s: %s" % (where, from_file.group(1),
                                                         first_difference(body, actual)))
            continue
        cmds = commands(body)
        if not cmds:
            continue
        if skip:
            counts["skipped"] += 1
            said.append("skipped %s (not run: %s)" % (where, skip.group(1)))
            continue
        needs = NEEDS.match(marker)
        if needs and subprocess.run(["/usr/bin/python3", "-c", "import " + needs.group(1)],
                                    capture_output=True).returncode != 0:
            counts["skipped"] += 1
            said.append("skipped %s (needs %s, which /usr/bin/python3 lacks)"
                        % (where, needs.group(1)))
            continue
        if work is None:
            build = os.path.dirname(hybridsim)
            work = mirror(root, build if os.path.isfile(os.path.join(build, "CMakeCache.txt"))
                          else None)
        for text, expected in cmds:
            argv = argv_of(text, hybridsim)
            if argv is None:
                report("%s: `%s`: not a command this test runs (mark the block "
                       "<!-- not run: REASON -->, or drop the `$ ` prompt)" % (where, text))
                continue
            if max_gpus is not None and gpus_of(text) > max_gpus:
                counts["skipped_commands"] += 1
                said.append("skipped %s (%d GPUs, over --max-gpus %d): %s"
                            % (where, gpus_of(text), max_gpus, text[:90]))
                continue
            counts["commands"] += 1
            started, cpu = time.monotonic(), children_cpu_s()
            try:
                run = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True,
                                     timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                report("%s: `%s`: still running after %d s" % (where, text, TIMEOUT_S))
                continue
            took, cpu = time.monotonic() - started, children_cpu_s() - cpu
            if run.returncode == 77:
                counts["skipped"] += 1
                said.append("skipped %s (exit 77, what it needs is missing): %s"
                            % (where, text[:90]))
                continue
            out = run.stdout if run.returncode == 0 else run.stderr
            stream = "stdout" if run.returncode == 0 else "stderr (exit %d)" % run.returncode
            said.append("ran %s (%.1f s, %.1f s CPU): %s" % (where, took, cpu, text[:90]))
            if not matches(expected, out.split("\n")):
                report("%s: `%s`: its %s differs from the block: %s\n--- %s:\n%s" %
                       (where, text, stream, first_difference(expected, out.split("\n")),
                        stream, out.rstrip()))
    return said, problems, counts


def children_cpu_s():
    """User and system seconds of the commands run so far (wall times stretch with the load)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def tracked_readmes(root):
    try:
        names = subprocess.run(["git", "-C", root, "ls-files", "*README.md", "README.md"],
                               capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        names = [os.path.relpath(os.path.join(d, f), root)
                 for d, _, files in os.walk(root) if "/build" not in d and "/.git" not in d
                 for f in files if f == "README.md"]
    return sorted(set(os.path.join(root, n) for n in names))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hybridsim", help="the built hybridsim (default: $HS_BUILD/hybridsim, "
                        "else hybridsim on the PATH)")
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), help="the repository root (default: this file's ../)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                        help="READMEs checked at once (default: the cores)")
    parser.add_argument("--max-gpus", type=int, help="skip the blocks with a hybridsim command "
                        "on more GPUs (the sanitized build's e2e_readme)")
    parser.add_argument("readmes", nargs="*")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    hybridsim = args.hybridsim
    if not hybridsim and os.environ.get("HS_BUILD"):
        hybridsim = os.path.join(os.environ["HS_BUILD"], "hybridsim")
    if not hybridsim:
        hybridsim = subprocess.run(["sh", "-c", "command -v hybridsim"], capture_output=True,
                                   text=True).stdout.strip()
    if not hybridsim or not os.access(hybridsim, os.X_OK):
        sys.exit("readme_examples: no hybridsim (give --hybridsim, or set HS_BUILD)")
    hybridsim = os.path.abspath(hybridsim)
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(hybridsim) + os.pathsep + env.get("PATH", "")
    env["HYBRIDSIM"] = hybridsim
    env["HYBRIDSIM_HOME"] = root
    readmes = [os.path.abspath(r) for r in args.readmes] or tracked_readmes(root)
    problems = []
    counts = {"commands": 0, "skipped": 0, "skipped_commands": 0, "files": 0}
    # READMEs in parallel (each has its own scratch folder; a README's blocks run in order), the
    # largest first; printed in their order as each is done.
    with concurrent.futures.ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {path: pool.submit(check_readme, path, root, hybridsim, env,
                                       args.max_gpus)
                   for path in sorted(readmes, key=os.path.getsize, reverse=True)}
        for path in readmes:
            lines, found, n = futures[path].result()
            for line in lines:
                print(line, flush=True)
            problems += found
            for k in counts:
                counts[k] += n[k]
    over = (", %d commands over --max-gpus skipped" % counts["skipped_commands"]
            if args.max_gpus is not None else "")
    print("readme_examples: %d READMEs, %d commands run%s, %d blocks skipped, %d excerpts, "
          "%d failed" % (len(readmes), counts["commands"], over, counts["skipped"],
                         counts["files"], len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
