"""Writing results so that a reader finds all of them or none, even after a kill or a crash.

Two shapes of "all or nothing":

- `staged_files`: a few files beside each other (a sweep point's tables, a reproduction's report),
  each written under a temporary name and renamed onto its final name once all are written. Each
  rename is atomic; the group is not, so whoever reads them must tell a complete group from a
  partial one (the sweep store renames summary last and checks it).
- `replace_dir`: a whole directory (`incast run --out DIR`), written as a fresh sibling and swapped
  into place. On Linux the swap is one `renameat2(RENAME_EXCHANGE)`, atomic as a group; elsewhere
  (or on a file system without it) it is two renames, and a process killed between them leaves
  `DIR` absent with the old result in a hidden sibling, which the next `replace_dir` of `DIR` (or
  `recover_dir`) puts back before anything else.

Every file is fsynced before its rename and every directory after, so that a rename that
survived a power cut names a file whose bytes survived too.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterator, List, Optional, Tuple

NEW_MARK = ".incast-tmp-"
"""Infix of a sibling directory being filled: `.DIR.incast-tmp-PID-XXXX`."""
OLD_MARK = ".incast-old-"
"""Infix of an old result moved aside during a two-rename swap: `.DIR.incast-old-PID-XXXX`."""


def fsync_file(path: Path) -> None:
    """Flushes `path`'s bytes to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    """Flushes `path`'s entries (names created, renamed or removed in it) to the disk. Windows
    cannot open a directory; there the rename's own guarantees are all there is."""
    if os.name == "nt":  # pragma: no cover - not on Unix
        return
    fsync_file(path)


@contextlib.contextmanager
def staged_files() -> Iterator[Callable[[Path], Path]]:
    """Writes a group of files all or nothing. Inside the block, `stage(final)` gives a fresh
    temporary file beside `final` to write to; when the block ends normally every staged file is
    fsynced and renamed onto its final name, in the order staged, and their directories fsynced;
    if it raises, the temporary files are removed and every final file is left as it was.

        with staged_files() as stage:
            pq.write_table(table, stage(out / "flows.parquet"))
            stage(out / "summary.json").write_text(text)
    """
    staged: List[Tuple[Path, Path]] = []

    def stage(final: Path) -> Path:
        tmp = stage_file(final.parent, final.name)
        staged.append((tmp, final))
        return tmp

    try:
        yield stage
        for tmp, _ in staged:
            fsync_file(tmp)
        for tmp, final in staged:
            os.replace(tmp, final)
        for directory in dict.fromkeys(final.parent for _, final in staged):
            fsync_dir(directory)
    finally:
        for tmp, _ in staged:
            if tmp.exists():
                tmp.unlink()


def stage_file(directory: Path, name: str) -> Path:
    """A new empty file in `directory` to write `name` under before renaming it into place, with
    the permissions a plain `open` would give (mkstemp's are owner-only)."""
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())
    finally:
        os.close(fd)
    return Path(tmp)


def _umask() -> int:
    """The process's umask, read where Linux shows it (/proc/self/status, Linux 4.7 and later):
    `os.umask` can only read the mask by setting another, and for that moment every file another
    thread creates (a sweep writes points from several) would get the other mask. Elsewhere, and
    on older kernels, it is set and put back."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


class ForeignContent(FileExistsError):
    """`replace_dir` refused a directory holding something its writer does not own."""


def replace_dir(target: Path, fill: Callable[[Path], None], owns: Callable[[str], bool]) -> Path:
    """Replaces the directory `target` by what `fill(directory)` writes into a fresh sibling, as a
    group: a reader of `target` sees the old contents or the new, never a mix, and no temporary
    file or directory survives the next call, even after a kill. Returns the directory replaced
    (`target` with symlinks resolved: a symlinked `--out` keeps pointing at the new result).

    `owns(name)` says whether an entry of an existing `target` may be replaced; a `target` holding
    anything else raises `ForeignContent` before anything is written. Any OSError (ENOSPC...)
    leaves `target` as it was."""
    target = Path(os.path.realpath(target))
    parent = target.parent
    if parent == target:
        raise IsADirectoryError(errno.EISDIR, "cannot replace the root directory", str(target))
    parent.mkdir(parents=True, exist_ok=True)
    recover_dir(target)
    check_owned(target, owns)
    tmp = Path(tempfile.mkdtemp(dir=parent, prefix=f".{target.name}{NEW_MARK}{os.getpid()}-"))
    try:
        fill(tmp)
        for entry in tmp.iterdir():
            fsync_file(entry)
        os.chmod(tmp, target.stat().st_mode & 0o7777 if target.is_dir() else 0o777 & ~_umask())
        fsync_dir(tmp)
        swap_into_place(tmp, target)
        fsync_dir(parent)
    finally:
        # After a swap by exchange, tmp holds the old result.
        if os.path.lexists(tmp):
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def check_owned(target: Path, owns: Callable[[str], bool]) -> None:
    """Raises `ForeignContent` if `target` (symlinks resolved) exists and holds an entry `owns`
    does not claim."""
    target = Path(os.path.realpath(target))
    if not os.path.lexists(target):
        return
    if not target.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "exists and is not a directory", str(target))
    foreign = sorted(entry.name for entry in target.iterdir() if not owns(entry.name))
    if foreign:
        shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        raise ForeignContent(
            errno.EEXIST,
            f"holds {shown}, not written by incast run; the results replace the whole directory, "
            "so choose another one (or empty it)",
            str(target),
        )


def swap_into_place(new: Path, target: Path) -> None:
    """Puts directory `new` at `target`. If `target` existed, `new` holds the old one afterwards
    (exchange) or the old one is gone (two renames)."""
    if not os.path.lexists(target):
        os.rename(new, target)
    elif not _exchange(new, target):
        aside = target.parent / f".{target.name}{OLD_MARK}{os.getpid()}-{os.urandom(4).hex()}"
        os.rename(target, aside)
        # From here until the next rename, `target` is absent: recover_dir puts `aside` back if
        # this process dies in between.
        try:
            os.rename(new, target)
        except BaseException:
            os.rename(aside, target)
            raise
        shutil.rmtree(aside, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swaps two directories atomically (Linux `renameat2(RENAME_EXCHANGE)`); False where the
    system or the file system cannot."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    import ctypes

    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EXDEV):
        return False
    raise OSError(code, os.strerror(code), str(b))


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_RENAMEAT2: List[Optional[Callable[..., int]]] = []


def _renameat2() -> Optional[Callable[..., int]]:
    """glibc's renameat2, looked up once; None off Linux or with an older C library."""
    if not _RENAMEAT2:
        function = None
        if sys.platform.startswith("linux"):
            import ctypes

            try:
                function = ctypes.CDLL(None, use_errno=True).renameat2
                function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
                function.restype = ctypes.c_int
            except (AttributeError, OSError):
                function = None
        _RENAMEAT2.append(function)
    return _RENAMEAT2[0]


def recover_dir(target: Path) -> None:
    """Cleans up after a `replace_dir` of `target` killed midway: an old result moved aside while
    `target` is absent goes back into place; every other sibling left by a dead process goes."""
    parent, name = target.parent, target.name
    if not parent.is_dir():
        return
    olds: List[Path] = []
    stale: List[Path] = []
    for sibling in parent.iterdir():
        for mark, found in ((OLD_MARK, olds), (NEW_MARK, stale)):
            prefix = f".{name}{mark}"
            if sibling.name.startswith(prefix) and not _alive(sibling.name[len(prefix):].split("-")[0]):
                found.append(sibling)
    if olds and not os.path.lexists(target):
        olds.sort(key=lambda p: p.stat().st_mtime_ns)
        os.rename(olds.pop(), target)
        fsync_dir(parent)
    for leftover in olds + stale:
        shutil.rmtree(leftover, ignore_errors=True)


def _alive(pid_text: str) -> bool:
    """Whether the process that named a sibling may still be writing it (this process counts as
    alive: another thread may be)."""
    try:
        pid = int(pid_text)
    except ValueError:
        return False
    if pid <= 0:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return True
