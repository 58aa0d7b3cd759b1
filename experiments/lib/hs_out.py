"""hs_out.py: the Python scripts' one safe writer, the twin of workloads/common/hs_out.h (and
of experiments/lib/out.sh): what an output path is decides how it is written.
  - a new file, or an existing regular file (also behind a symbolic link, which is kept):
    written into a temp created exclusively beside the resolved file (tempfile.mkstemp,
    NAME.XXXXXXXX.tmp), given the old file's mode (a new one: 0666 minus the umask), flushed,
    then renamed over it: until then the old file is whole;
  - a character device or a FIFO: written in place, never replaced;
  - anything else (a directory, a block device, a socket, a dangling link): refused.
Refused raises Refused (exit 2 for the caller); a failed write raises Failed (exit 1). Both
messages name the flag and the path."""
import os
import stat
import tempfile


class Refused(Exception):
    """The path is not one to write (a bad input: exit 2)."""


class Failed(Exception):
    """Writing failed (exit 1)."""


def _kind(flag, path):
    """("new" | "regular" | "inplace", os.stat_result or None)."""
    if not path:
        raise Refused("%s needs a file name" % flag)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise Refused("%s %s: a symbolic link to nothing" % (flag, path))
        return "new", None
    except OSError as e:
        raise Refused("%s %s: %s" % (flag, path, e.strerror))
    if stat.S_ISREG(st.st_mode):
        return "regular", st
    if stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
        return "inplace", st
    what = ("a directory" if stat.S_ISDIR(st.st_mode) else "a block device"
            if stat.S_ISBLK(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode)
            else "not a regular file")
    raise Refused("%s %s: is %s, not a file to write" % (flag, path, what))


def _temp(flag, path, target):
    folder, base = os.path.split(target)
    try:
        return tempfile.mkstemp(prefix=base + ".", suffix=".tmp", dir=folder or ".")
    except OSError as e:
        raise Refused("%s %s: cannot create a file there: %s" % (flag, path, e.strerror))


def check(flag, path):
    """Whether path could be written, without writing it (before long work)."""
    kind, _ = _kind(flag, path)
    if kind == "inplace":
        if not os.access(path, os.W_OK):
            raise Refused("%s %s: cannot write" % (flag, path))
        return
    fd, tmp = _temp(flag, path, path if kind == "new" else os.path.realpath(path))
    os.close(fd)
    os.unlink(tmp)


def _umask():
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


def write(flag, path, data):
    """data (str: UTF-8, or bytes) becomes path's contents, as described above."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    kind, st = _kind(flag, path)
    if kind == "inplace":
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC)
        except OSError as e:
            raise Refused("%s %s: cannot write: %s" % (flag, path, e.strerror))
        try:
            mode = os.fstat(fd).st_mode
            if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
                raise Refused("%s %s: changed while being opened" % (flag, path))
            with os.fdopen(fd, "wb") as f:
                fd = -1
                f.write(data)
        except OSError as e:
            raise Failed("%s %s: write error: %s" % (flag, path, e.strerror))
        finally:
            if fd >= 0:
                os.close(fd)
        return
    target = path if kind == "new" else os.path.realpath(path)
    fd, tmp = _temp(flag, path, target)
    try:
        os.fchmod(fd, st.st_mode & 0o7777 if st else 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
        os.replace(tmp, target)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise Failed("%s %s: write error: %s" % (flag, path, e.strerror))
        raise
