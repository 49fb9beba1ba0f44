"""The wheels make dist wrote, checked as an index would take them: each is
tagged for its platform, holds the package and that platform's extension,
byte for byte the binary tests/builds/dist.sh loads in the platform's shell
(so under qemu or wine), with RECORD's hashes right; a manylinux binary asks
for no glibc symbol newer than 2.17, a musllinux one for no library but
libc, a Windows one for none but KERNEL32 and msvcrt.
Usage: wheels.py DIST VERSION"""
import base64
import hashlib
import re
import subprocess
import sys
import zipfile

WHEELS = [  # platform of scripts/dist.sh, wheel tag, extension
    ("linux-x64", "manylinux_2_17_x86_64", "so"),
    ("linux-arm64", "manylinux_2_17_aarch64", "so"),
    ("linux-x64-musl", "musllinux_1_2_x86_64", "so"),
    ("win32-x64", "win_amd64", "dll"),
]


def glibc_versions(path):
    symbols = subprocess.run(["readelf", "--dyn-syms", "-W", path], check=True, capture_output=True, text=True).stdout
    return {tuple(map(int, v.split("."))) for v in re.findall(r"@GLIBC_([0-9.]+)", symbols)}


def needed(path):
    dynamic = subprocess.run(["readelf", "-d", path], check=True, capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.*)\]", dynamic)


def dll_imports(path):
    headers = subprocess.run(["objdump", "-p", path], check=True, capture_output=True, text=True).stdout
    return re.findall(r"DLL Name: (\S+)", headers)


def record_errors(wheel):
    errors = []
    record = next(n for n in wheel.namelist() if n.endswith(".dist-info/RECORD"))
    for line in wheel.read(record).decode().splitlines():
        name, digest, _ = line.rsplit(",", 2)
        if name == record:
            continue
        actual = base64.urlsafe_b64encode(hashlib.sha256(wheel.read(name)).digest()).rstrip(b"=").decode()
        if digest != "sha256=" + actual:
            errors.append(f"RECORD's hash of {name} is wrong")
    return errors


def check(dist, version, platform, tag, suffix):
    path = f"{dist}/sqlite_shorn-{version}-py3-none-{tag}.whl"
    binary = f"{dist}/shorn-{version}-{platform}.{suffix}"
    info = f"sqlite_shorn-{version}.dist-info"
    with zipfile.ZipFile(path) as wheel:
        names = sorted(wheel.namelist())
        expected = sorted([f"sqlite_shorn/{n}" for n in ("__init__.py", "sqlalchemy.py", f"shorn.{suffix}")] +
                          [f"{info}/{n}" for n in ("METADATA", "WHEEL", "RECORD", "top_level.txt")])
        if names != expected:
            return [f"{path} holds {names}"]
        errors = record_errors(wheel)
        tags = re.findall(r"^Tag: (.*)$", wheel.read(f"{info}/WHEEL").decode(), re.M)
        if tags != [f"py3-none-{tag}"]:
            errors.append(f"{path} is tagged {tags}")
        with open(binary, "rb") as f:
            if wheel.read(f"sqlite_shorn/shorn.{suffix}") != f.read():
                errors.append(f"{path}'s extension is not {binary}")
    if tag.startswith("manylinux_2_17") and max(glibc_versions(binary)) > (2, 17):
        errors.append(f"{binary} needs glibc {max(glibc_versions(binary))}")
    if tag.startswith("musllinux") and needed(binary) != ["libc.so"]:
        errors.append(f"{binary} needs {needed(binary)}")
    if tag == "win_amd64" and sorted(dll_imports(binary)) != ["KERNEL32.dll", "msvcrt.dll"]:
        errors.append(f"{binary} imports {dll_imports(binary)}")
    return errors


def main(dist, version):
    errors = [e for w in WHEELS for e in check(dist, version, *w)]
    for error in errors:
        print("wheels:", error)
    if errors:
        sys.exit(1)
    print(f"wheels: {len(WHEELS)} wheels tagged for their platforms, each with its platform's extension")


if __name__ == "__main__":
    main(*sys.argv[1:])
