#!/usr/bin/env python3
"""The guest's copy of a job folder: ci/lab/board.sh never shares the job folder itself.

A kernel under test is untrusted, and the job folder is also where the host and the scripts
around board.sh write (summaries, logs, the console). So the guest gets a copy, in a folder of
the host's own, and what it changed comes back once it is off:

  share_sync.py copy-in JOB SHARE    # JOB's files and folders into SHARE (empty), + a manifest
  share_sync.py import SHARE JOB     # what the guest wrote or removed in SHARE, back into JOB

Only regular files and folders cross, both ways: a link, FIFO, device or socket is left out and
named on stderr (a guest's link would otherwise make the host write or read where it points).
Nothing is followed (O_NOFOLLOW, lstat), a file the guest wrote replaces what is at its path in
JOB (removed first, then created O_EXCL), and the total imported is bounded (--max-bytes,
default 4 GiB): past it, the rest is left out and named. A file the host wrote in JOB during
the boot (the log its caller redirects into it) is kept unless the guest wrote the same path.
Exit 0, or 2 with one line on a usage or I/O error.
"""
import argparse
import json
import os
import shutil
import stat
import sys

MANIFEST = ".rtgate-share-manifest.json"  # in SHARE's parent, the host's folder


def note(msg):
    print(f"share_sync: {msg}", file=sys.stderr)


def walk(root):
    """(relative path, lstat) of everything under root, parents first, following nothing."""
    stack = [""]
    while stack:
        rel = stack.pop()
        with os.scandir(os.path.join(root, rel) if rel else root) as it:
            for e in sorted(it, key=lambda e: e.name):
                r = os.path.join(rel, e.name) if rel else e.name
                st = e.stat(follow_symlinks=False)
                yield r, st
                if stat.S_ISDIR(st.st_mode):
                    stack.append(r)


def copy_file(src, dst, budget):
    """src to a new file dst (whatever was at dst removed first). Returns the bytes copied."""
    remove(dst)
    fi = os.open(src, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        if not stat.S_ISREG(os.fstat(fi).st_mode):
            raise OSError(f"{src} is no longer a regular file")
        mode = stat.S_IMODE(os.fstat(fi).st_mode) & 0o777 | 0o600
        fo = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        n = 0
        try:
            while True:
                chunk = os.read(fi, 1 << 20)
                if not chunk:
                    break
                n += len(chunk)
                if n > budget:
                    raise OverflowError
                os.write(fo, chunk)
        finally:
            os.close(fo)
        return n
    finally:
        os.close(fi)


def remove(path):
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def ensure_dir(path):
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            return
        remove(path)
    except FileNotFoundError:
        pass
    os.mkdir(path, 0o755)


def copy_in(job, share, manifest_path):
    os.mkdir(share, 0o755)  # a new one: never a folder someone else prepared
    manifest = {}
    for rel, st in walk(job):
        src, dst = os.path.join(job, rel), os.path.join(share, rel)
        if stat.S_ISDIR(st.st_mode):
            ensure_dir(dst)
        elif stat.S_ISREG(st.st_mode):
            copy_file(src, dst, float("inf"))
            sst = os.lstat(dst)
            manifest[rel] = [sst.st_size, sst.st_mtime_ns, st.st_size, st.st_mtime_ns]
        else:
            note(f"{src}: not a regular file or folder, not given to the guest")
    with open(manifest_path, "w") as f:
        json.dump(manifest, f)


def import_back(share, job, manifest_path, max_bytes):
    with open(manifest_path) as f:
        manifest = json.load(f)
    seen, budget = set(), max_bytes
    for rel, st in walk(share):
        src, dst = os.path.join(share, rel), os.path.join(job, rel)
        seen.add(rel)
        if stat.S_ISDIR(st.st_mode):
            ensure_dir(dst)
        elif not stat.S_ISREG(st.st_mode):
            note(f"{rel}: the guest left a link, FIFO, device or socket there: not imported")
        elif manifest.get(rel, [None, None])[:2] != [st.st_size, st.st_mtime_ns]:
            if st.st_size > budget:
                note(f"{rel}: {st.st_size} bytes, past the import limit: not imported")
                continue
            try:
                budget -= copy_file(src, dst, budget)
            except OverflowError:
                remove(dst)
                note(f"{rel}: grew past the import limit: not imported")
    for rel in manifest:  # removed by the guest: removed here, unless the host wrote it since
        if rel not in seen:
            dst = os.path.join(job, rel)
            try:
                jst = os.lstat(dst)
            except FileNotFoundError:
                continue
            if stat.S_ISREG(jst.st_mode) and [jst.st_size, jst.st_mtime_ns] == manifest[rel][2:]:
                os.unlink(dst)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["copy-in", "import"])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--max-bytes", type=int, default=4 << 30)
    a = ap.parse_args()
    try:
        if a.mode == "copy-in":
            copy_in(a.src, a.dst, os.path.join(os.path.dirname(os.path.abspath(a.dst)), MANIFEST))
        else:
            share = os.path.abspath(a.src)
            import_back(share, a.dst, os.path.join(os.path.dirname(share), MANIFEST), a.max_bytes)
    except OSError as e:
        note(f"{a.mode}: {e}")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
