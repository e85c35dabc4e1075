#!/usr/bin/env python3
"""Builds rules/langid.bin.gz from langid.py 1.1.6 (PyPI, BSD licence; Lui and
Baldwin, "langid.py: An Off-the-shelf Language Identification Tool", ACL 2012):
its naive Bayes model over byte n-grams of 97 languages, exported as plain
arrays for agent/core/src/language/langid.rs. The package is fetched from PyPI by
pip (pinned version and sha256) and never imported; the model string is read
out of its source. Deterministic: the same input gives the same bytes.

Format (little-endian), gzip'd (mtime 0):
  "CSLANGID" | u16 format=1 | u16 classes C | u32 features F | u32 states S
  | C × (u8 length, ASCII code)          ISO 639-1 codes, langid's order
  | S*256 × u16 next state               the DFA over bytes (tk_nextmove)
  | (S+1) × u32 offsets, then × u16 features   what each state emits (tk_output, CSR)
  | C × f32 log prior (nb_pc) | F*C × f32 log P(feature | class) (nb_ptc, row per feature)

Usage: bench/build_langid.py [-o rules/langid.bin.gz]
"""
import argparse, base64, bz2, gzip, hashlib, io, os, pickle, re, struct, subprocess, sys, tarfile, tempfile

VERSION = "1.1.6"
PINNED = "044bcae1912dab85c33d8e98f2811b8f4ff1213e5e9a9e9510137b84da2cb293"  # the sdist's sha256


def fetch():
    d = tempfile.mkdtemp()
    subprocess.run([sys.executable, "-m", "pip", "download", f"langid=={VERSION}", "--no-deps",
                    "--no-binary", ":all:", "-q", "-d", d], check=True)
    path = os.path.join(d, f"langid-{VERSION}.tar.gz")
    data = open(path, "rb").read()
    return data, hashlib.sha256(data).hexdigest()


def model_from(sdist):
    with tarfile.open(fileobj=io.BytesIO(sdist)) as t:
        src = t.extractfile(f"langid-{VERSION}/langid/langid.py").read().decode()
    m = re.search(r'model=b"""(.*?)"""', src, re.S)
    return pickle.loads(bz2.decompress(base64.b64decode(m.group(1))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", "--output", default=os.path.join(os.path.dirname(__file__), "..", "rules", "langid.bin.gz"))
    a = ap.parse_args()
    sdist, digest = fetch()
    if digest != PINNED:
        raise SystemExit(f"langid-{VERSION}.tar.gz: sha256 {digest}, expected {PINNED}")
    nb_ptc, nb_pc, classes, nextmove, output = model_from(sdist)
    C, S = len(nb_pc), len(nextmove) // 256
    F = len(nb_ptc) // C
    assert len(nextmove) == S * 256 and max(nextmove) < S < 65536 and F < 65536
    out = io.BytesIO()
    out.write(b"CSLANGID" + struct.pack("<HHII", 1, C, F, S))
    for c in classes:
        out.write(struct.pack("<B", len(c)) + c.encode("ascii"))
    out.write(struct.pack(f"<{S * 256}H", *nextmove))
    offsets, feats = [0], []
    for s in range(S):
        feats.extend(sorted(output.get(s, [])))
        offsets.append(len(feats))
    out.write(struct.pack(f"<{S + 1}I", *offsets))
    out.write(struct.pack(f"<{len(feats)}H", *feats))
    out.write(struct.pack(f"<{C}f", *nb_pc))
    out.write(struct.pack(f"<{F * C}f", *nb_ptc))
    raw = out.getvalue()
    with open(a.output, "wb") as f:
        with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, compresslevel=9) as g:
            g.write(raw)
    print(f"{C} languages, {F} features, {S} states: {len(raw)} bytes, {os.path.getsize(a.output)} gzip'd -> {a.output}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
