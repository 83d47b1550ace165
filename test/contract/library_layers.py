#!/usr/bin/python3
"""The compiler's libraries form layers, and every link and every include
goes down: tfm IR -> dist IR (and the importer) -> tfm's external models
(Extensions) -> analyses -> passes and the lowering -> pipelines.

Reads each library's LINK_LIBS from lib/**/CMakeLists.txt and each source's
#include "seqpar/..." lines; a library linking or including one of its own
layer or above (another than itself) is a back edge. Libraries of one layer
do not know each other (the lowering does not link the passes).

usage: library_layers.py SRC
"""
import glob
import os
import re
import sys

LAYERS = {
    "SeqparTfmDialect": 0,
    "SeqparDistDialect": 1,
    "SeqparImport": 1,
    "SeqparDistExtensions": 2,
    "SeqparDistAnalysis": 3,
    "SeqparDistTransforms": 4,
    "SeqparTfmTransforms": 4,
    "SeqparSpToRuntime": 4,
    "SeqparPipelines": 5,
}

# The library a header under include/seqpar/ belongs to (longest prefix).
HEADERS = {
    "Dialect/Common/": None,  # tablegen'd enums and interfaces, no library
    "Dialect/Tfm/IR/": "SeqparTfmDialect",
    "Dialect/Tfm/Transforms/": "SeqparTfmTransforms",
    "Dialect/Dist/IR/": "SeqparDistDialect",
    "Dialect/Dist/Extensions/": "SeqparDistExtensions",
    "Dialect/Dist/Analysis/": "SeqparDistAnalysis",
    "Dialect/Dist/Transforms/": "SeqparDistTransforms",
    "Conversion/": "SeqparSpToRuntime",
    "Import/": "SeqparImport",
    "Pipelines/": "SeqparPipelines",
    "InitAll.h": "SeqparPipelines",
}


def libraries(root):
    """name -> (directory, [linked seqpar libraries])"""
    libs = {}
    for cmake in glob.glob(root + "/lib/**/CMakeLists.txt", recursive=True):
        text = open(cmake).read()
        for m in re.finditer(r"add_mlir_\w*library\((\w+)(.*?)\n\)", text,
                             re.S):
            body = m.group(2)
            links = []
            if "LINK_LIBS" in body:
                links = re.findall(r"\b(Seqpar\w+)",
                                   body.split("LINK_LIBS", 1)[1])
            libs[m.group(1)] = (os.path.dirname(cmake), links)
    return libs


def header_library(path):
    best = None
    for prefix, lib in HEADERS.items():
        if path.startswith(prefix) and (best is None or
                                        len(prefix) > len(best[0])):
            best = (prefix, lib)
    return best[1] if best else "unknown"


def main(root):
    problems = []
    libs = libraries(root)
    for name in libs:
        if name not in LAYERS:
            problems.append(f"{name}: not in the layer table "
                            "(test/contract/library_layers.py)")
    for name, (directory, links) in sorted(libs.items()):
        if name not in LAYERS:
            continue
        for dep in links:
            if dep not in LAYERS:
                problems.append(f"{name} links {dep}, which is no layer")
            elif LAYERS[dep] >= LAYERS[name]:
                problems.append(f"{name} (layer {LAYERS[name]}) links {dep} "
                                f"(layer {LAYERS[dep]}): a back edge")
        sources = glob.glob(directory + "/*.cpp") + glob.glob(directory +
                                                               "/*.h")
        for src in sorted(sources):
            for inc in re.findall(r'#include "seqpar/([^"]+)"',
                                  open(src).read()):
                if inc.endswith(".inc"):
                    continue  # tablegen'd alongside its header
                lib = header_library(inc)
                if lib is None or lib == name:
                    continue
                if lib not in LAYERS:
                    problems.append(f"{os.path.relpath(src, root)} includes "
                                    f"{inc}, of no known library")
                elif LAYERS[lib] >= LAYERS[name]:
                    problems.append(f"{os.path.relpath(src, root)} ({name}, "
                                    f"layer {LAYERS[name]}) includes {inc} "
                                    f"({lib}, layer {LAYERS[lib]})")
    for p in problems:
        print(p)
    print(f"{len(libs)} libraries, {sum(len(l) for _, l in libs.values())} "
          f"links: {'BACK EDGES' if problems else 'OK'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
