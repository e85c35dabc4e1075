#!/usr/bin/env python3
"""Characters per word in scripts written without spaces, measured with
dictionary segmenters on ../shared/data/langid's sentences.

crawlsieve counts words in Thai, Lao, Khmer, Myanmar, Chinese and Japanese
without a dictionary: characters of the script × a weight (words per
character, `analyse::text::unspaced_weight`). This script measures the
weights on real text with PyPI's segmenters (pythainlp's newmm for Thai,
jieba for Chinese, janome for Japanese). Lao, Khmer and Myanmar have no
sentences here and take Thai's weight (syllable-based scripts of the same
family; say so in the README).

    python3 -m venv target/seg-venv
    target/seg-venv/bin/pip install pythainlp==5.4.0 jieba==0.42.1 janome==0.5.1
    target/seg-venv/bin/python bench/words_per_script.py ../shared/data/langid/sentences
"""
import sys
import unicodedata


def script_chars(text, lo_hi):
    return sum(1 for c in text if any(lo <= ord(c) <= hi for lo, hi in lo_hi))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/langid/sentences"
    thai = [(0x0E00, 0x0E7F)]
    han = [(0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2FFFF)]
    kana = [(0x3040, 0x30FF)]

    from pythainlp.tokenize import word_tokenize
    import jieba
    from janome.tokenizer import Tokenizer

    jieba.setLogLevel(60)
    janome = Tokenizer()
    cases = [
        ("th", "Thai", thai, lambda s: word_tokenize(s, engine="newmm")),
        ("zh", "Chinese (Han)", han, lambda s: list(jieba.cut(s))),
        ("ja", "Japanese (Han + kana)", han + kana, lambda s: [t.surface for t in janome.tokenize(s)]),
    ]
    print(f"{'language':<24} {'sentences':>9} {'chars':>8} {'words':>8} {'chars/word':>10}")
    for code, name, ranges, segment in cases:
        lines = [l.strip() for l in open(f"{root}/{code}.txt", encoding="utf-8") if l.strip()]
        chars = words = 0
        for line in lines:
            chars += script_chars(line, ranges)
            # A word of the script: a token holding at least one of its characters.
            words += sum(1 for tok in segment(line) if script_chars(tok, ranges) > 0)
        print(f"{name:<24} {len(lines):>9} {chars:>8} {words:>8} {chars / words:>10.2f}")


if __name__ == "__main__":
    main()
