#!/usr/bin/env python3
"""normalize.py: masks, in one invocation's outputs, what may differ between two honest runs of
two builds, so that run.sh can compare the rest byte for byte.

Usage: normalize.py DIR EXE SRC CWD. DIR holds stdout, stderr, status and files/ (what the
command wrote); every text file in it is rewritten in place:
  - the executable's path, the source tree's path and the command's folder become <HS>, <SRC>
    and <CWD> (the two builds live in different places);
  - in a sweep CSV (a header with wall_s), the wall_s column is blanked: it is a time;
  - the sweep's progress lines ("0:07 elapsed, about 0:02 left") and per-run seconds in a
    sweep log lose their clock values;
  - a study MANIFEST's commit and date lines are masked.
Binary files (PNG) are left alone: gnuplot draws the same bytes from the same data.
"""
import csv
import io
import os
import re
import sys


def mask_paths(text, exe, src, cwd):
    # the longest first: the folder of the command may lie under the source tree
    for path, tag in sorted(((exe, "<HS>"), (os.path.realpath(exe), "<HS>"), (cwd, "<CWD>"),
                             (os.path.realpath(cwd), "<CWD>"), (src, "<SRC>"),
                             (os.path.realpath(src), "<SRC>")),
                            key=lambda p: -len(p[0])):
        text = text.replace(path, tag)
    return text


def mask_wall(text):
    lines = text.splitlines(keepends=True)
    if not lines or "wall_s" not in lines[0]:
        return text
    rows = list(csv.reader(io.StringIO(text)))
    col = rows[0].index("wall_s")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(rows[0])
    for row in rows[1:]:
        if len(row) > col:
            row[col] = "<s>"
        writer.writerow(row)
    return out.getvalue()


CLOCK = re.compile(r"\b\d+:\d\d(:\d\d)?\b")
SECONDS = re.compile(r"\b\d+(\.\d+)? ?s\b")


def normalize(path, exe, src, cwd):
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    if "\0" in text:
        return
    text = mask_paths(text, exe, src, cwd)
    name = os.path.basename(path)
    if name.endswith(".csv"):
        text = mask_wall(text)
    if name == "stderr" or name.endswith(".log"):
        text = CLOCK.sub("<t>", text)
        text = SECONDS.sub("<s>", text)
    if name == "MANIFEST":
        # the commit and whether the tree had changes: the two builds differ there by design
        text = re.sub(r"(?m)^(commit:\s*).*$", r"\1<commit>", text)
    if name == "MANIFEST" or name.endswith(".md") or name.endswith(".txt"):
        text = re.sub(r"\b[0-9a-f]{7,40}\b", "<commit>", text)
        text = re.sub(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?( ?[+-]\d{4}| ?UTC| ?Z)?", "<date>",
                      text)
        text = SECONDS.sub("<s>", text)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    top, exe, src, cwd = sys.argv[1:5]
    for dirpath, _, files in os.walk(top):
        for name in files:
            if name != "status":
                normalize(os.path.join(dirpath, name), exe, src, cwd)


if __name__ == "__main__":
    main()
