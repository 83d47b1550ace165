"""Lists the string-typed options of sp-compile, the pipelines
(PipelineOptions) and the passes (Passes.td) and fails on any that is not
free text: a choice among named values must be an enum of SeqparChoices.td
(or one of sp-compile's own), parsed and validated by its cl::values.

usage: choice_options.py SOURCE_ROOT"""
import re
import sys

root = sys.argv[1]
# String options that are free text, not a choice: why each is a string.
FREE_TEXT = {
    # sp-compile
    "<model.mlir>": "the input file",
    "o": "the output file",
    "tp": "an integer, parsed strictly (no octal, hex or wrap-around)",
    "dp": "an integer, parsed strictly",
    "cp": "an integer, parsed strictly",
    "pp": "an integer, parsed strictly",
    "zero": "an integer, parsed strictly",
    "micro-batches": "an integer, parsed strictly",
    "fuse-chunks": "an integer, parsed strictly",
    # passes
    "output": "sp-report's output file",
    "context-axis": "a mesh axis name",
    "tensor-axis": "a mesh axis name",
    "data-axis": "a mesh axis name",
    "pipeline-axis": "a mesh axis name",
}

found = []  # (file, option name)
text = open(f"{root}/tools/sp-compile/sp-compile.cpp").read()
for m in re.finditer(r'cl::opt<std::string>\s*(\w+)?\s*\(\s*"([^"]*)"', text):
    found.append(("tools/sp-compile/sp-compile.cpp", m.group(2)))
for m in re.finditer(r'cl::opt<std::string>\s*\w+\s*\(\s*cl::Positional[^;]*'
                     r'cl::desc\("([^"]*)"\)', text):
    found.append(("tools/sp-compile/sp-compile.cpp", m.group(1)))
text = open(f"{root}/include/seqpar/Pipelines/Pipelines.h").read()
for m in re.finditer(r'Option<std::string>\s*\w+\{\s*\*this,\s*"([^"]*)"', text):
    found.append(("include/seqpar/Pipelines/Pipelines.h", m.group(1)))
for td in ("include/seqpar/Dialect/Dist/Transforms/Passes.td",
           "include/seqpar/Dialect/Tfm/Transforms/Passes.td",
           "include/seqpar/Conversion/Passes.td"):
    text = open(f"{root}/{td}").read()
    for m in re.finditer(r'Option<"\w+",\s*"([^"]+)",\s*"std::string"', text):
        found.append((td, m.group(1)))

bad = [(f, n) for f, n in found if n not in FREE_TEXT]
for f, n in found:
    print(f"{f}: {n}: " + (FREE_TEXT[n] if n in FREE_TEXT else
                           "A STRING CHOICE (declare an enum in SeqparChoices.td)"))
print(f"{len(found)} string options, {len(bad)} choices: " +
      ("OK" if not bad else "FAIL"))
sys.exit(1 if bad else 0)
