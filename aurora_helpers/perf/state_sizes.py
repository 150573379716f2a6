"""How big a training state is, and where: bytes per device in memory, bytes per file on disk.

A training state (parameters, gradients, optimizer state, a step counter) is a pytree of
``jax.Array``; under a sharding, each device holds only its shards of each array, and a
replicated array counts once on *every* device that holds a copy. :func:`state_bytes` adds the
shards up per device and per part, so a notebook can compare what a layout *should* cost each
device with what the arrays really occupy::

    held = ah.state_bytes(params=params, grads=grads, optimizer=opt_state)
    held.largest("optimizer")        # bytes of Adam's moments on the busiest device
    held.largest()                   # all parts together, on the busiest device

:func:`folder_bytes` lists the files under a folder (a checkpoint) with their sizes. Nothing here
knows about any training library: the parts are plain pytrees, the folder plain files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import numpy as np

from .._display import format_bytes, html_table, text_table


def bytes_per_device(tree: Any) -> dict[jax.Device, int]:
    """Bytes of ``tree``'s arrays on each device that holds a shard of one of them.

    Every ``jax.Array`` leaf contributes the bytes of each shard this process can address
    (``x.addressable_shards``: in a multi-process job, only this process's devices). Leaves that
    are not arrays (``None``, Python numbers, strings) hold no device memory and are skipped.

    Raises:
        TypeError: a leaf is a NumPy array (host memory, on no device): ``jax.device_put`` it
            first, or leave it out of the tree.
    """
    held: dict[jax.Device, int] = {}
    for path, leaf in jax.tree_util.tree_leaves_with_path(tree):
        if isinstance(leaf, jax.Array):
            for shard in leaf.addressable_shards:
                held[shard.device] = held.get(shard.device, 0) + shard.data.nbytes
        elif isinstance(leaf, np.ndarray):
            raise TypeError(
                f"the leaf at {jax.tree_util.keystr(path) or 'the root'} is a NumPy array, which "
                "lives in host memory on no device; jax.device_put it first or leave it out"
            )
    return held


@dataclass(frozen=True)
class StateBytes:
    """Bytes each device holds of each part of a state (see :func:`state_bytes`).

    ``parts`` maps each part's name to ``{device: bytes}``; a device that holds nothing of a part
    is absent from that part's mapping.
    """

    parts: dict[str, dict[jax.Device, int]]

    @property
    def devices(self) -> list[jax.Device]:
        """Every device that holds something, by id."""
        found = {d for held in self.parts.values() for d in held}
        return sorted(found, key=lambda d: d.id)

    def per_device(self, part: str | None = None) -> dict[jax.Device, int]:
        """``{device: bytes}`` of one part, or of all parts together (``part=None``)."""
        if part is not None:
            if part not in self.parts:
                raise KeyError(f"no part named {part!r}; the parts are {list(self.parts)}")
            return dict(self.parts[part])
        total: dict[jax.Device, int] = {}
        for held in self.parts.values():
            for device, n in held.items():
                total[device] = total.get(device, 0) + n
        return total

    def largest(self, part: str | None = None) -> int:
        """Bytes on the busiest device: of one part, or of all parts together (0 if none)."""
        return max(self.per_device(part).values(), default=0)

    def smallest(self, part: str | None = None) -> int:
        """Bytes on the least loaded device that holds anything of the part (0 if none)."""
        return min(self.per_device(part).values(), default=0)

    def _rows(self) -> list[list[object]]:
        rows: list[list[object]] = []
        for name in [*self.parts, None]:
            held = self.per_device(name)
            spread = (
                format_bytes(self.largest(name))
                if self.largest(name) == self.smallest(name)
                else f"{format_bytes(self.smallest(name))} to {format_bytes(self.largest(name))}"
            )
            rows.append(
                [
                    name if name is not None else "all parts",
                    f"{self.largest(name):,d}",
                    spread,
                    len(held),
                    f"{sum(held.values()):,d}",
                ]
            )
        return rows

    _HEADERS = (
        "part",
        "bytes on the busiest device",
        "per device",
        "devices",
        "bytes, all devices",
    )

    def __str__(self) -> str:
        return text_table(self._HEADERS, self._rows())

    def _repr_html_(self) -> str:
        return html_table(self._HEADERS, self._rows())


def state_bytes(**parts: Any) -> StateBytes:
    """Bytes each device holds of each named part of a state, from the arrays' own shards.

    Example: ``ah.state_bytes(params=params, optimizer=opt_state).largest()`` is what the busiest
    device holds of both. See :func:`bytes_per_device` for what counts.
    """
    if not parts:
        raise ValueError("name at least one part, e.g. ah.state_bytes(params=params)")
    return StateBytes({name: bytes_per_device(tree) for name, tree in parts.items()})


@dataclass(frozen=True)
class FolderBytes:
    """The files under a folder and their sizes (see :func:`folder_bytes`)."""

    root: Path
    files: tuple[tuple[str, int], ...]
    """``(path relative to root, with "/" separators, bytes)``, sorted by path."""

    @property
    def total(self) -> int:
        """Bytes of every file together."""
        return sum(size for _, size in self.files)

    def by_folder(self, depth: int = 1) -> dict[str, int]:
        """Bytes per folder ``depth`` levels below the root (files at a shallower level keep
        their own name), in path order."""
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        grouped: dict[str, int] = {}
        for path, size in self.files:
            parts = path.split("/")
            key = "/".join(parts[:depth]) + ("/" if len(parts) > depth else "")
            grouped[key] = grouped.get(key, 0) + size
        return grouped

    def matching(self, fragment: str) -> tuple[tuple[str, int], ...]:
        """The files whose relative path contains ``fragment``."""
        return tuple((p, s) for p, s in self.files if fragment in p)

    def _rows(self) -> list[list[object]]:
        return [[path, f"{size:,d}"] for path, size in self.files]

    def __str__(self) -> str:
        head = f"{len(self.files)} file(s), {self.total:,d} bytes ({format_bytes(self.total)})"
        return head + "\n" + text_table(("file", "bytes"), self._rows())

    def _repr_html_(self) -> str:
        caption = f"{len(self.files)} file(s), {self.total:,d} bytes ({format_bytes(self.total)})"
        return html_table(("file", "bytes"), self._rows(), caption=caption)


def folder_bytes(folder: str | os.PathLike[str]) -> FolderBytes:
    """Every file under ``folder`` (recursively) with its size in bytes.

    Symbolic links are listed by their own size and never followed, so a link cannot pull
    another folder into the count.

    Raises:
        NotADirectoryError: ``folder`` is not a folder.
    """
    root = Path(folder)
    if not root.is_dir():
        raise NotADirectoryError(f"{root} is not a folder")
    files = []
    for folder_path, folders, names in os.walk(root, followlinks=False):
        here = Path(folder_path)
        # A link to a folder is listed as an entry, never entered.
        names = names + [f for f in folders if (here / f).is_symlink()]
        for name in names:
            path = here / name
            files.append((path.relative_to(root).as_posix(), path.lstat().st_size))
    return FolderBytes(root, tuple(sorted(files)))
