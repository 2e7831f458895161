#!/usr/bin/env python3
"""Parses a built page with Python's html.parser (a real tokenizer, not a grep) and prints, as
JSON, what the page's chrome holds: for each element whose class or tag marks a title, summary,
label, tag or heading from a spec, the child elements it contains and their attributes, plus its
text. Usage: dom_chrome.py PAGE.html"""
import json
import sys
from html.parser import HTMLParser

CHROME_CLASSES = {"step-title", "branch-label", "branch-target", "lede", "flow-card-title", "flow-card-summary", "tag", "actor-name", "next-step"}
CHROME_TAGS = {"h1", "h2", "h3", "title"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Chrome(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []  # (tag, is_chrome_root)
        self.depth = 0   # how many chrome roots are open
        self.found = []  # elements created inside chrome
        self.texts = []
        self.handlers = []  # every on* attribute anywhere

    def handle_starttag(self, tag, attrs):
        classes = set((dict(attrs).get("class") or "").split())
        for name, value in attrs:
            if name.lower().startswith("on"):
                self.handlers.append({"tag": tag, "attribute": name, "value": value})
        if self.depth > 0:
            self.found.append({"tag": tag, "attributes": [name for name, _ in attrs]})
        root = tag in CHROME_TAGS or bool(classes & CHROME_CLASSES)
        if tag in VOID:
            return
        self.stack.append((tag, root))
        if root:
            self.depth += 1
            self.texts.append("")

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, root = self.stack.pop()
            if root:
                self.depth -= 1
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self.depth > 0 and self.texts:
            self.texts[-1] += data


parser = Chrome()
with open(sys.argv[1], encoding="utf-8") as page:
    parser.feed(page.read())
print(json.dumps({"elements": parser.found, "texts": parser.texts, "handlers": parser.handlers}))
