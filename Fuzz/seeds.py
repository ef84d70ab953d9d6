"""Writes seed inputs for a fuzz target from the shared test vectors (stdlib only)."""
import hashlib, json, os, sys

target, vectors_path, out = sys.argv[1:4]
vectors = json.load(open(vectors_path))
seeds = []
if target == "FuzzSetupCode":
    for group in ("setupCode.encode", "setupCode.decode"):
        for v in vectors[group]["vectors"]:
            for key in ("setupCode", "input", "payloadJson"):
                if key in v:
                    seeds.append(v[key])
    for v in vectors["urlPolicy"]["normalization"]:
        seeds.append(v["input"])
elif target == "FuzzJSON":
    for v in vectors["setupCode.encode"]["vectors"]:
        seeds.append(v["payloadJson"])
    seeds.append(json.dumps(vectors["setupCode.access"]))
for seed in seeds:
    data = seed.encode()
    with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)
