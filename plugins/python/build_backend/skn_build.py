"""A PEP 517 build backend for the skn package, with nothing to download:
a wheel is a zip of the package, its .dist-info (METADATA, WHEEL, RECORD)
and, where one is found, libskn.so.1 beside the package's modules (see
pyproject.toml). PEP 427 gives the format."""
import base64
import hashlib
import io
import os
import sysconfig
import tarfile
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # plugins/python
NAME = "skn"


def _version():
    """The library's version, from its header (abi/skn.h's SKN_VERSION_MAJOR, _MINOR, _PATCH: the one
    place every package takes it from); an sdist, away from the tree, carries it in PKG-INFO."""
    header = os.path.join(HERE, "..", "..", "abi", "skn.h")
    if os.path.isfile(header):
        parts = {}
        for line in open(header):
            words = line.split()
            if len(words) >= 3 and words[0] == "#define" and words[1] in ("SKN_VERSION_MAJOR", "SKN_VERSION_MINOR",
                                                                            "SKN_VERSION_PATCH"):
                parts[words[1]] = int(words[2])
        return f"{parts['SKN_VERSION_MAJOR']}.{parts['SKN_VERSION_MINOR']}.{parts['SKN_VERSION_PATCH']}"
    for line in open(os.path.join(HERE, "PKG-INFO")):
        if line.startswith("Version:"):
            return line.split(":", 1)[1].strip()
    raise RuntimeError("no abi/skn.h beside the package and no PKG-INFO: which version is this?")


def _library():
    """The libskn.so.1 to bundle, or None: $SKN_WHEEL_LIBRARY, else the project's build —
    its stripped copy (`make install` makes it), else the library itself."""
    given = os.environ.get("SKN_WHEEL_LIBRARY")
    if given:
        if not os.path.isfile(given):
            raise RuntimeError(f"SKN_WHEEL_LIBRARY={given}: no such file")
        return given
    build = os.path.join(HERE, "..", "..", "build")
    for built in (os.path.join(build, "stripped", "libskn.so.1"), os.path.join(build, "libskn.so.1")):
        if os.path.isfile(built):
            return built
    return None


def _metadata(version):
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\n"
            "Summary: Skeletal mesh skinning with libskn\nRequires-Python: >=3.8\nRequires-Dist: numpy\n")


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version, library = _version(), _library()
    tag = f"py3-none-{sysconfig.get_platform().replace('-', '_').replace('.', '_')}" if library else "py3-none-any"
    dist_info = f"{NAME}-{version}.dist-info"
    files = {}
    package = os.path.join(HERE, NAME)
    for module in sorted(os.listdir(package)):
        if module.endswith(".py"):
            files[f"{NAME}/{module}"] = open(os.path.join(package, module), "rb").read()
    if library:
        files[f"{NAME}/libskn.so.1"] = open(library, "rb").read()
    files[f"{dist_info}/METADATA"] = _metadata(version).encode()
    files[f"{dist_info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: skn_build\nRoot-Is-Purelib: "
                                   f"{'false' if library else 'true'}\nTag: {tag}\n").encode()
    files[f"{dist_info}/top_level.txt"] = f"{NAME}\n".encode()
    record = [_record_line(p, d) for p, d in files.items()] + [f"{dist_info}/RECORD,,"]
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    name = f"{NAME}-{version}-{tag}.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files.items():
            info = zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if path.endswith(".so.1") else 0o644) << 16
            z.writestr(info, data, zipfile.ZIP_DEFLATED)
    return name


def build_sdist(sdist_directory, config_settings=None):
    version = _version()
    base = f"{NAME}-{version}"
    name = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for part in ("pyproject.toml", NAME, "build_backend"):
            t.add(os.path.join(HERE, part), f"{base}/{part}",
                  filter=lambda i: None if "__pycache__" in i.name else i)
        info = _metadata(version).encode()  # PKG-INFO: the sdist's metadata, its version with it
        entry = tarfile.TarInfo(f"{base}/PKG-INFO")
        entry.size, entry.mtime, entry.mode = len(info), 1767225600, 0o644
        t.addfile(entry, io.BytesIO(info))
    return name
