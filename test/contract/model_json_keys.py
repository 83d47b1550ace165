#!/usr/bin/python3
"""The keys of seqpar_model_json: the compiler writes, and the runtime reads,
exactly those runtime/include/sprt/model_json.def declares.

usage: model_json_keys.py SRC  (the repository root)
"""
import glob
import re
import sys


def source(paths):
    return "".join(re.sub(r"//.*", "", open(p).read()) for p in paths)


def main(root):
    table = open(root + "/runtime/include/sprt/model_json.def").read()
    declared = set(re.findall(r"^SPRT_MODEL_KEY\((\w+)\)", table, re.M))
    compiler = source(glob.glob(root + "/lib/Conversion/SpToRuntime/*.cpp"))
    # {"key", value} in a json::Object, and object["key"] = value.
    written = set(re.findall(r'\{"([a-z_]+)",', compiler))
    written |= set(re.findall(r'\["([a-z_]+)"\]\s*=', compiler))
    runtime = source([root + "/runtime/driver/Model.cpp"])
    # j.at("key"), j.value("key", ...), j.contains("key"), j["key"], and
    # the keys of a loop `for (const char *c : {"a", "b"})`.
    read = set(re.findall(r'(?:at|value|contains)\("([a-z_]+)"', runtime))
    read |= set(re.findall(r'\w\["([a-z_]+)"\]', runtime))
    for group in re.findall(r"const char \*\w+ : \{([^}]*)\}", runtime):
        read |= set(re.findall(r'"([a-z_]+)"', group))
    problems = []
    for what, keys in (("writes", written), ("reads", read)):
        for k in sorted(keys - declared):
            problems.append(f"the {'compiler' if what == 'writes' else 'runtime'}"
                            f" {what} '{k}', which model_json.def does not "
                            "declare")
    for k in sorted(declared - written):
        problems.append(f"model_json.def declares '{k}', which the compiler "
                        "never writes")
    for k in sorted(declared - read):
        problems.append(f"model_json.def declares '{k}', which the runtime "
                        "never reads")
    for p in problems:
        print(p)
    print(f"{len(declared)} keys declared, {len(written)} written, "
          f"{len(read)} read: {'MISMATCH' if problems else 'OK'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
