"""The variant space as CMake generated it from cmake/CompoundSparseVariantSpace.cmake:
<build>/generated/compound_sparse/variant_space.json (entry types with their class,
precision and component count; layouts; schedule kinds; launch bounds). The Python
scripts read the entry types from it rather than keeping a list of their own."""
import json
import os
import re

ENVIRONMENT = "COMPOUND_SPARSE_VARIANT_SPACE"
DEFAULT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "generated",
                       "compound_sparse", "variant_space.json")


def load(path=None):
    """The variant space from `path`, else $COMPOUND_SPARSE_VARIANT_SPACE, else build/ of this tree."""
    path = path or os.environ.get(ENVIRONMENT) or DEFAULT
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except OSError as e:
        raise SystemExit(f"variant_space: cannot read {path} ({e.strerror}): configure the project first, "
                         f"or name the file with --variant-space or ${ENVIRONMENT}") from None


def components_of_class(space):
    """{class: scalar components per entry}, e.g. {"complex": 2, "quaternion": 4, ...}."""
    return {e["class"]: e["components"] for e in space["entry_types"]}


def mangled_entry_tokens(space):
    """[(regular expression of the Itanium-mangled template argument, entry name)] of the
    declared entry types, as they appear in kernel names: Kokkos::complex<float> ->
    "7complexIfE", compound_sparse::Block<double, 3> -> "5BlockIdLi3EE". Mixed precision's
    compound_sparse::Mixed<Kokkos::complex<float>> mangles as "5MixedIN6Kokkos7complexIfEEE"
    or, where the namespace was seen before, with a substitution ("5MixedINS0_10QuaternionIfEEE"):
    its pattern allows a short qualifier between "5MixedI" and the stored type's token. Mixed
    patterns come first: each contains its stored type's token."""
    scalars = {"float": "f", "double": "d"}

    def plain(cpp_type):
        match = re.fullmatch(r"(?:\w+::)*(\w+)<\s*(float|double)\s*(?:,\s*(\d+)\s*)?>", cpp_type)
        if not match:
            raise SystemExit(f"variant_space: cannot mangle entry type {cpp_type!r}")
        name, scalar, size = match.groups()
        return re.escape(f"{len(name)}{name}I{scalars[scalar]}" + (f"Li{size}E" if size else "") + "E")

    mixed, others = [], []
    for e in space["entry_types"]:
        stored = re.fullmatch(r"(?:\w+::)*Mixed<\s*(.+?)\s*>", e["cpp_type"])
        if stored:
            mixed.append((r"5MixedI(?:N\w{1,12}?)?" + plain(stored.group(1)), e["name"]))
        else:
            others.append((plain(e["cpp_type"]), e["name"]))
    return mixed + others
