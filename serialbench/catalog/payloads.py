"""Payloads of the user's own request: `--payload SPEC|FILE|DIR`, one more input kind of the catalog.

A payload is what an engineer choosing a protocol sends: `input_ids:int64[32,512],attention_mask:
int64[32,512]` (a spec, filled with deterministic, plausible values), a `.npz` file (each array a
tensor, keyed by its name), a `.npy` file (one tensor), or a directory of files (one BYTES tensor
of their contents, e.g. a batch of JPEGs). It becomes a `Payload` of named `Tensor`s like the
built-in kinds, and its benchmarks are named `FORMAT/IMPL/INPUT/TIER` like theirs: INPUT a short
word derived from the spec or file name (or given as `NAME=...`), TIER its total size in bytes
(`393K`, `1.2M`: inputs.tier_size reads it back), so that `-b` globs, tables, plots, the round trip
and verdicts work unchanged. The whole spec goes into each benchmark's metadata.

pyperf's workers (and compare's) rebuild the payload from the same argument: the values come from
SHAKE-256 (inputs.random_bytes) with exact arithmetic, the same bytes in every process, on every
machine; a file is read again in each worker. Nothing is allocated before the size is checked
against inputs.MAX_INPUT_BYTES. `ml_dtypes` (bfloat16) is imported only by a payload that has one.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import os
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from serialbench.catalog.inputs import INPUT_KINDS, MAX_INPUT_BYTES, Payload, Tensor, random_bytes
from serialbench.core.errors import UsageError

# Every dtype a serving protocol carries (KServe v2's datatypes, TensorFlow's DataType), by numpy's name.
DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64", "bytes")
BYTES = "bytes"
BYTES_ELEMENT = 1024  # bytes of each element of a spec's `bytes` tensor (random, like a compressed image)
VOCABULARY = 30522  # token ids of a spec's `*ids*` tensors: BERT's WordPiece vocabulary
WORD_LIMIT = 40  # a derived INPUT word longer than this becomes "N-tensors-<digest>"

SPEC_HELP = ("give NAME:DTYPE[D,...] tensors separated by commas (e.g. input_ids:int64[32,512],"
             "attention_mask:int64[32,512]), a .npz or .npy file, or a directory of files; NAME=... names it")
_TENSOR = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.\-]*)\s*:\s*([A-Za-z0-9_]+)\s*\[([^\[\]]*)\]\s*")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+\-]*")
_NAMED = re.compile(r"([^=:\[\]/,]+)=(.+)")  # NAME=SPEC|FILE|DIR


@dataclass(frozen=True)
class TensorSpec:
    """What a case needs to know of a tensor before it is built: its name, dtype word and shape."""

    name: str
    dtype: str  # one of DTYPES
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __str__(self) -> str:
        return f"{self.name}:{self.dtype}[{','.join(map(str, self.shape))}]"


@dataclass(frozen=True)
class PayloadSource:
    """One `--payload`: its INPUT word, where it comes from, and its tensors, known before any is built."""

    word: str
    argument: str  # as given, a file's path made absolute (workers run in another directory)
    tensors: tuple[TensorSpec, ...]
    nbytes: int  # raw bytes of every tensor: the TIER word and `input_bytes`
    path: str = ""  # the .npz, .npy or directory; "" for a spec

    @property
    def tier(self) -> str:
        return size_word(self.nbytes)

    @property
    def spec(self) -> str:
        """The tensors as a spec: `input_ids:int64[32,512],attention_mask:int64[32,512]`."""
        return ",".join(map(str, self.tensors))

    def metadata(self) -> dict[str, str]:
        """What a result file records of the payload (single-line strings, as pyperf requires)."""
        return {"serialbench_payload": " ".join(self.argument.split()),
                "serialbench_payload_tensors": self.spec}


def size_word(nbytes: int) -> str:
    """393216 -> '393K', 1204224 -> '1.2M': three significant digits, read back by inputs.tier_size."""
    units = ((10**9, "G"), (10**6, "M"), (10**3, "K"))
    for index, (scale, suffix) in enumerate(units):
        if nbytes >= scale:
            text = f"{nbytes / scale:.3g}"
            if float(text) >= 1000 and index:  # 999,999 bytes: '1M', not '1e+03K'
                return "1" + units[index - 1][1]
            return text + suffix
    return str(nbytes)


# Parsing -----------------------------------------------------------------------------------------

def parse_payloads(arguments: Sequence[str]) -> list[PayloadSource]:
    """Every `--payload`, checked: a usage error of one line for the first that is wrong, or for
    two that would have the same INPUT word."""
    sources = [parse_payload(argument) for argument in arguments]
    seen: dict[str, str] = {}
    for source in sources:
        if source.word in seen:
            raise UsageError(f"--payload {seen[source.word]!r} and {source.argument!r} are both named "
                             f"{source.word!r}; name one with NAME=..., e.g. --payload mine={source.argument}")
        seen[source.word] = source.argument
    return sources


def parse_payload(argument: str) -> PayloadSource:
    """A spec, a .npz or .npy file or a directory, optionally named `NAME=...`."""
    word, body = None, argument
    named = _NAMED.fullmatch(argument)
    if named and not os.path.exists(argument):
        word, body = named.group(1).strip(), named.group(2).strip()
        _check_word(word, argument)
    if os.path.exists(body):
        source = _from_path(Path(body), argument)
    elif ":" in body or "[" in body:
        source = _from_spec(body, argument)
    else:
        raise UsageError(f"--payload {argument!r}: neither a spec nor an existing file or directory; {SPEC_HELP}")
    source = dataclasses.replace(source, word=word or source.word, argument=absolute(argument))
    _check_size(source, argument)
    return source


def absolute(argument: str) -> str:
    """The argument with a file's or directory's path made absolute (`NAME=` kept), a spec as it is."""
    if os.path.exists(argument):
        return os.path.abspath(argument)
    named = _NAMED.fullmatch(argument)
    if named and os.path.exists(named.group(2).strip()):
        return f"{named.group(1)}={os.path.abspath(named.group(2).strip())}"
    return argument


def _check_word(word: str, argument: str) -> None:
    if not _WORD.fullmatch(word):
        raise UsageError(f"--payload {argument!r}: the name {word!r} must be letters, digits and _.+- "
                         "(it is the INPUT word of FORMAT/IMPL/INPUT/TIER)")
    if word in INPUT_KINDS or word.startswith("edge-"):
        raise UsageError(f"--payload {argument!r}: {word!r} is a built-in input kind's name; choose another")


def _check_size(source: PayloadSource, argument: str) -> None:
    if source.nbytes > MAX_INPUT_BYTES:
        raise UsageError(f"--payload {argument!r} needs {source.nbytes:,} bytes of input, over the limit of "
                         f"{MAX_INPUT_BYTES:,} (SERIALBENCH_MAX_INPUT_BYTES); nothing was allocated: "
                         "give a smaller shape")


def _from_spec(spec: str, argument: str) -> PayloadSource:
    tensors, position = [], 0
    while position < len(spec):
        match = _TENSOR.match(spec, position)
        if not match:
            raise UsageError(f"--payload {argument!r}: cannot read {spec[position:].strip()!r}; {SPEC_HELP}")
        name, dtype, dims = match.groups()
        tensors.append(TensorSpec(name, _dtype_word(dtype, match.group(0).strip(), argument),
                                  _shape(dims, match.group(0).strip(), argument)))
        position = match.end()
        if position < len(spec):
            if spec[position] != ",":
                raise UsageError(f"--payload {argument!r}: a comma must follow {match.group(0).strip()!r}; "
                                 f"{SPEC_HELP}")
            position += 1
    if not tensors:
        raise UsageError(f"--payload {argument!r}: no tensor; {SPEC_HELP}")
    _check_names(tensors, argument)
    nbytes = sum(t.size * (BYTES_ELEMENT if t.dtype == BYTES else _itemsize(t.dtype)) for t in tensors)
    return PayloadSource(_spec_word(tensors), argument, tuple(tensors), nbytes)


def _dtype_word(dtype: str, tensor: str, argument: str) -> str:
    if dtype not in DTYPES:
        raise UsageError(f"--payload {argument!r}: unknown dtype {dtype!r} in {tensor!r}; accepted: "
                         f"{', '.join(DTYPES)}")
    return dtype


def _shape(dims: str, tensor: str, argument: str) -> tuple[int, ...]:
    words = [word.strip() for word in dims.split(",")] if dims.strip() else []
    if not all(word.isdigit() for word in words):
        raise UsageError(f"--payload {argument!r}: the shape of {tensor!r} must be whole numbers, e.g. [32,512]")
    return tuple(int(word) for word in words)


def _check_names(tensors: Sequence[TensorSpec], argument: str) -> None:
    names = [t.name for t in tensors]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise UsageError(f"--payload {argument!r}: tensor {twice[0]!r} is named twice; each tensor needs its own name")


def _itemsize(dtype: str) -> int:
    return 2 if dtype == "bfloat16" else np.dtype(dtype).itemsize


def _spec_word(tensors: Sequence[TensorSpec]) -> str:
    """`3xint64-32x512`, `uint8-8x224x224x3`, `int64-32x512+float32-32x768`: dtype and shape of each
    tensor, identical neighbours counted."""
    groups: list[list] = []
    for tensor in tensors:
        word = f"{tensor.dtype}-{'x'.join(map(str, tensor.shape)) or 'scalar'}"
        if groups and groups[-1][0] == word:
            groups[-1][1] += 1
        else:
            groups.append([word, 1])
    text = "+".join(f"{count}x{word}" if count > 1 else word for word, count in groups)
    if len(text) <= WORD_LIMIT:
        return text
    digest = hashlib.sha256(",".join(map(str, tensors)).encode()).hexdigest()[:8]
    return f"{len(tensors)}-tensors-{digest}"


def _safe_word(text: str) -> str:
    word = re.sub(r"[^A-Za-z0-9_.+\-]+", "-", text).strip("-.") or "payload"
    return word if word[0].isalnum() else "p" + word


def _from_path(path: Path, argument: str) -> PayloadSource:
    path = path.resolve()
    if path.is_dir():
        return _from_directory(path, argument)
    suffix = path.suffix.lower()
    if suffix not in (".npz", ".npy"):
        raise UsageError(f"--payload {argument!r}: a file must be .npz (each array a tensor) or .npy (one tensor); "
                         f"{SPEC_HELP}")
    headers = _read_headers(path, argument)
    tensors = tuple(TensorSpec(name, _array_dtype(dtype, name, argument), shape)
                    for name, (dtype, shape) in headers.items())
    if not tensors:
        raise UsageError(f"--payload {argument!r}: the file holds no array")
    nbytes = sum(math.prod(shape) * dtype.itemsize for dtype, shape in headers.values() if dtype.kind not in "SU")
    if any(dtype.kind in "SU" for dtype, _ in headers.values()):  # byte strings: their lengths, once read
        nbytes += sum(_strings_nbytes(array) for array in _read_arrays(path, argument).values()
                      if array.dtype.kind in "SU")
    word = _safe_word(path.stem)
    _check_not_builtin(word, argument)
    return PayloadSource(word, str(path), tensors, nbytes, str(path))


def _from_directory(path: Path, argument: str) -> PayloadSource:
    files = _directory_files(path)
    if not files:
        raise UsageError(f"--payload {argument!r}: the directory holds no file")
    word = _safe_word(path.name)
    _check_not_builtin(word, argument)
    tensor = TensorSpec(_safe_word(path.name).replace("+", "_"), BYTES, (len(files),))
    return PayloadSource(word, str(path), (tensor,), sum(f.stat().st_size for f in files), str(path))


def _check_not_builtin(word: str, argument: str) -> None:
    if word in INPUT_KINDS or word.startswith("edge-"):
        raise UsageError(f"--payload {argument!r}: its name {word!r} is a built-in input kind's; "
                         f"name it with NAME=..., e.g. --payload mine={argument}")


def _directory_files(path: Path) -> list[Path]:
    """The directory's regular files in name order (hidden ones left out): the batch's elements."""
    return sorted(f for f in path.iterdir() if f.is_file() and not f.name.startswith("."))


def _read_headers(path: Path, argument: str) -> dict[str, tuple[np.dtype, tuple[int, ...]]]:
    """Each array's dtype and shape from the file's headers, in the file's order, nothing allocated
    (a .npy's one array is named after the file)."""
    try:
        if path.suffix.lower() == ".npy":
            with open(path, "rb") as file:
                return {_npy_name(path): _npy_header(file)}
        with zipfile.ZipFile(path) as archive:
            headers = {}
            for member in archive.namelist():
                if member.endswith(".npy"):
                    with archive.open(member) as file:
                        headers[member[: -len(".npy")]] = _npy_header(file)
            return headers
    except (ValueError, zipfile.BadZipFile) as exc:
        raise UsageError(f"--payload {argument!r}: not a numpy file ({exc})") from None
    except OSError as exc:
        raise UsageError(f"--payload {argument!r}: cannot read it ({exc.strerror or exc})") from None


def _npy_header(file) -> tuple[np.dtype, tuple[int, ...]]:
    version = np.lib.format.read_magic(file)
    if version == (1, 0):
        shape, _fortran, dtype = np.lib.format.read_array_header_1_0(file)
    elif version == (2, 0):
        shape, _fortran, dtype = np.lib.format.read_array_header_2_0(file)
    else:  # 3.0 differs from 2.0 only in its header's encoding (UTF-8 field names)
        raise ValueError(f".npy format version {version[0]}.{version[1]}: save it with numpy's default format")
    return dtype, tuple(shape)


def _npy_name(path: Path) -> str:
    return _safe_word(path.stem).replace("+", "_")


def _read_arrays(path: Path, argument: str) -> dict[str, np.ndarray]:
    """The file's arrays by name, in the file's order."""
    try:
        if path.suffix.lower() == ".npy":
            return {_npy_name(path): np.load(path, allow_pickle=False)}
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except ValueError as exc:
        raise UsageError(f"--payload {argument!r}: not a numpy file ({exc})") from None
    except OSError as exc:
        raise UsageError(f"--payload {argument!r}: cannot read it ({exc.strerror or exc})") from None


def _array_dtype(dtype: np.dtype, name: str, argument: str) -> str:
    if dtype.kind in "SU":
        return BYTES
    if dtype.name in DTYPES:
        return dtype.name
    if dtype.hasobject:
        raise UsageError(f"--payload {argument!r}: array {name!r} is an object array, which needs pickle, which "
                         "serialbench does not load; store byte strings as a fixed-width bytes array "
                         "(dtype 'S') or give a directory of files")
    why = (" (numpy saves bfloat16 as raw 2-byte void: give it as a spec, name:bfloat16[...])"
           if dtype.kind == "V" and dtype.itemsize == 2 else "")
    raise UsageError(f"--payload {argument!r}: array {name!r} is {dtype.str}{why}; accepted dtypes: "
                     f"{', '.join(DTYPES)}")


def _strings_nbytes(array: np.ndarray) -> int:
    return sum(len(element if isinstance(element, bytes) else element.encode())
               for element in array.reshape(-1).tolist())


# Building ----------------------------------------------------------------------------------------

@cache
def build(source: PayloadSource) -> Payload:
    """The payload's tensors, read-only like every payload (cached: prepare steps share it)."""
    if not source.path:
        tensors = tuple(Tensor(t.name, _values(t)) for t in source.tensors)
    elif Path(source.path).is_dir():
        files = _directory_files(Path(source.path))
        batch = np.empty(len(files), dtype=object)
        batch[:] = [f.read_bytes() for f in files]
        tensors = (Tensor(source.tensors[0].name, batch),)
    else:
        arrays = _read_arrays(Path(source.path), source.argument)
        tensors = tuple(Tensor(name, _from_file(array)) for name, array in arrays.items())
    for tensor in tensors:
        tensor.value.setflags(write=False)  # a case that mutates its input would corrupt the next op
    return Payload(source.word, source.tier, tensors)


def _from_file(array: np.ndarray) -> np.ndarray:
    """An array as a tensor: numbers copied into memory; fixed-width bytes or text as a BYTES batch."""
    if array.dtype.kind in "SU":
        elements = [e if isinstance(e, bytes) else e.encode() for e in array.reshape(-1).tolist()]
        batch = np.empty(len(elements), dtype=object)
        batch[:] = elements
        return batch.reshape(array.shape)
    return np.array(array)


def _values(spec: TensorSpec) -> np.ndarray:
    """Deterministic values, plausible for the dtype and the tensor's name."""
    label = f"payload/{spec}"
    name = spec.name.lower()
    if spec.dtype == BYTES:
        raw = random_bytes(label, spec.size * BYTES_ELEMENT)
        batch = np.empty(spec.size, dtype=object)
        batch[:] = [raw[i * BYTES_ELEMENT : (i + 1) * BYTES_ELEMENT] for i in range(spec.size)]
        return batch.reshape(spec.shape)
    if spec.dtype == "bfloat16":
        import ml_dtypes

        return _floats(spec, label).astype(ml_dtypes.bfloat16)
    dtype = np.dtype(spec.dtype)
    if dtype.kind == "f":
        return _floats(spec, label).astype(dtype)
    if dtype.kind == "b":
        return (_words(spec.size, label) & 1).astype(bool).reshape(spec.shape)
    if "mask" in name:
        return _prefix_ones(spec, label, ones_first=True).astype(dtype)
    if "type" in name or "segment" in name:
        return _prefix_ones(spec, label, ones_first=False).astype(dtype)
    info = np.iinfo(dtype)
    if "ids" in name or "token" in name:
        return (_words(spec.size, label) % min(VOCABULARY, int(info.max) + 1)).astype(dtype).reshape(spec.shape)
    raw = np.frombuffer(random_bytes(label, spec.size * dtype.itemsize), dtype=dtype.newbyteorder("<"))
    return raw.astype(dtype).reshape(spec.shape)  # every value of the dtype equally likely


def _words(count: int, label: str) -> np.ndarray:
    return np.frombuffer(random_bytes(label, 4 * count), dtype="<u4").astype(np.uint32)


def _floats(spec: TensorSpec, label: str) -> np.ndarray:
    """About normal, mean 0 and standard deviation 1.15, within ±4: twice the sum of four uniforms
    of 16 bits minus 4 (Irwin-Hall), exact in float64, so the same bits on every machine."""
    quarters = np.frombuffer(random_bytes(label, 8 * spec.size), dtype="<u2").astype(np.float64)
    sums = quarters.reshape(-1, 4).sum(axis=1) * 2.0**-16
    return ((sums - 2.0) * 2.0).reshape(spec.shape)


def _prefix_ones(spec: TensorSpec, label: str, ones_first: bool) -> np.ndarray:
    """Each row (the last axis) a run of ones then zeros (an attention mask over a padded sequence),
    or zeros then ones (token types: the first segment, then the second); run lengths random."""
    if not spec.shape or spec.size == 0:
        return np.ones(spec.shape, dtype=np.int64) if ones_first else np.zeros(spec.shape, dtype=np.int64)
    length = spec.shape[-1]
    rows = spec.size // length if length else 0
    cut = (_words(rows, label) % length + 1).reshape(-1, 1) if length else np.zeros((rows, 1), dtype=np.uint32)
    first = np.arange(length) < cut  # True up to each row's cut
    return (first if ones_first else ~first).astype(np.int64).reshape(spec.shape)
