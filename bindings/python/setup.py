"""Builds sqlite-shorn from the amalgamation beside this file (shorn.c, shorn.h).

A wheel that make dist builds finds the platform's prebuilt extension in
sqlite_shorn/ already and only packs it.  Installed from the sdist, there is
none, so the extension is compiled here with this machine's C compiler: it
needs SQLite's headers (sqlite3ext.h), as any SQLite extension does.
"""
import os
import re
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
SUFFIX = {"darwin": "dylib", "win32": "dll"}.get(sys.platform, "so")


def shorn_version():
    with open(os.path.join(HERE, "shorn.h"), encoding="utf-8") as header:
        return re.search(r'#define SHORN_VERSION "([^"]+)"', header.read()).group(1)


class build_py_with_extension(build_py):
    """build_py, plus the loadable extension when the tree has none."""

    def run(self):
        super().run()
        if any(os.path.exists(os.path.join(HERE, "sqlite_shorn", "shorn." + suffix))
               for suffix in ("so", "dylib", "dll")):
            return
        from distutils.ccompiler import new_compiler
        from distutils.sysconfig import customize_compiler

        compiler = new_compiler()
        customize_compiler(compiler)
        flags = [] if sys.platform == "win32" else ["-O2", "-fPIC"]
        objects = compiler.compile([os.path.join(HERE, "shorn.c")], output_dir=self.get_finalized_command("build").build_temp,
                                   extra_preargs=flags)
        target = os.path.join(self.build_lib, "sqlite_shorn", "shorn." + SUFFIX)
        compiler.link_shared_object(objects, target, libraries=[] if sys.platform == "win32" else ["m"])


setup(version=shorn_version(), cmdclass={"build_py": build_py_with_extension})
