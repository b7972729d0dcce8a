#!/usr/bin/env python3
"""Writes a mirror of stand-in files for every URL an OSWorld-format task tree
downloads, for `ufo eval --mirror DIR` runs without the network.

Usage:
    scripts/osworld/make_mirror.py TASKS OUT [--force]

TASKS is OSWorld's `evaluation_examples/` (or any folder holding task JSON
files, searched recursively); OUT is the mirror folder. Each URL of a setup or
postconfig `download` step and of a `cloud_file` getter gets a small valid file
of the kind the task saves it as (the extension of its `path` or `dest`: the
URLs themselves are mostly Google Drive ids without one), at the place
`ufo eval --mirror` looks: `OUT/host/path/last?query` (as `wget -x` saves it,
a `/` in the query written `%2F`).

A stand-in is a real file of its format (a workbook with one sheet, a document
with one paragraph, a presentation with one slide, a 16x16 image, a second of
silence, ...), so setup steps that open it and checkers that read it work on
it; its content is not the task's and differs from URL to URL (it names a
digest of the URL), so a task comparing its result with an expected file does
not find the two equal untouched. A URL only ever fetched as a checker's
`expected` file stands for a finished task's output, so its workbook or
document also carries what tasks make and checkers compare: a second sheet
with a chart and a pivot table, a table, an image, a tab stop and a reference
list. Where both sides lacked them, a checker found an untouched result equal.

A program a task runs (a script it downloads and then executes, such as an
`eval.sh`, or a Python tool whose output a checker reads) gets no stand-in: a
stand-in cannot do what the program does, and what it printed would be scored
as the program's output. Those URLs are reported and their tasks stay
`unavailable`. The office formats use openpyxl,
python-docx and python-pptx, the images Pillow, video and MP3 ffmpeg, when
they are there; without them xlsx, docx, png, gif and wav are written by hand,
and the rest is left out and reported (its tasks stay `unavailable`).

Prints one line per kind: how many URLs got a stand-in, and which could not.
Never copies anything of OSWorld's: only the URLs and destination names are
read from the task files.
"""

import argparse
import hashlib
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import wave
import zipfile
import zlib
from collections import Counter, defaultdict
from urllib.parse import urlsplit

TEXT = {
    ".txt": "Stand-in text file.\n",
    ".csv": "name,value\nalpha,1\nbeta,2\n",
    ".json": '{"stand_in": true}\n',
    ".py": "print('stand-in')\n",
    ".sh": "#!/bin/sh\necho stand-in\n",
    ".md": "# Stand-in\n\nA paragraph.\n",
    ".html": "<!DOCTYPE html><html><head><title>Stand-in</title></head><body><p>Stand-in page.</p></body></html>\n",
    ".css": "body { color: black; }\n",
    ".js": "console.log('stand-in');\n",
    ".cpp": "int main() { return 0; }\n",
    ".tex": "\\documentclass{article}\\begin{document}Stand-in.\\end{document}\n",
    ".bib": "@misc{standin, title={Stand-in}}\n",
    ".srt": "1\n00:00:00,000 --> 00:00:01,000\nStand-in\n",
    ".code-workspace": '{"folders": [{"path": "."}], "settings": {}}\n',
    ".eml": "From: a@example.com\nTo: b@example.com\nSubject: Stand-in\n\nStand-in mail.\n",
    ".xml": '<?xml version="1.0"?><stand-in/>\n',
    ".svg": '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect width="16" height="16"/></svg>\n',
}


def mirror_path(out, url):
    """Where `ufo eval --mirror OUT` looks for URL (see crates/ufo-eval/src/fetch.rs)."""
    u = urlsplit(url)
    host = u.hostname or ""
    if u.port and u.port not in (80, 443):
        host = f"{host}:{u.port}"
    segs = [s for s in u.path.split("/") if s and s not in (".", "..")]
    last = segs.pop() if segs else "index.html"
    if u.query:
        last = f"{last}?{u.query.replace('/', '%2F')}"
    return os.path.join(out, host, *segs, last)


def downloads(task):
    """(url, destination, role) of one task's downloads and cloud files; the
    role is "expected" for a checker's expected file, "program" for a
    download a later command runs, else "input"."""
    out = []

    ev = task.get("evaluator") if isinstance(task.get("evaluator"), dict) else {}
    all_steps = [s for lst in (task.get("config"), ev.get("postconfig")) if isinstance(lst, list)
                 for s in lst if isinstance(s, dict)]
    # The words a command runs: the first, one after an interpreter, and
    # one after a shell's `&&`, `;`, `|` (`chmod +x x.sh` runs nothing).
    interpreters = {"python", "python3", "bash", "sh", "zsh", "perl", "node"}
    run_words = set()

    def getter_commands(x):
        if isinstance(x, list):
            return [c for y in x for c in getter_commands(y)]
        if isinstance(x, dict) and x.get("type") in ("vm_command_line", "vm_command_error"):
            return [{"type": "command", "parameters": {"command": x.get("command")}}]
        return []

    for s in all_steps + getter_commands(ev.get("result")) + getter_commands(ev.get("expected")):
        if s.get("type") in ("execute", "command", "launch"):
            c = (s.get("parameters") or {}).get("command")
            words = [str(w) for w in (c if isinstance(c, list) else str(c or "").split())]
            prev = None
            for w in words:
                if prev is None or prev in ("&&", ";", "|", "||") or os.path.basename(prev) in interpreters:
                    run_words.add(w)
                prev = w

    def ran(path):
        name = os.path.basename(str(path or ""))
        return bool(name) and any(w == path or w == name or w.endswith("/" + name) for w in run_words)

    def steps(lst):
        for s in lst if isinstance(lst, list) else []:
            if isinstance(s, dict) and s.get("type") == "download":
                for f in (s.get("parameters") or {}).get("files") or []:
                    if isinstance(f, dict):
                        p = f.get("path")
                        out.append((f.get("url"), p, "program" if ran(p) else "input"))

    def getters(x, role):
        if isinstance(x, list):
            for y in x:
                getters(y, role)
        elif isinstance(x, dict) and x.get("type") == "cloud_file":
            p, d = x.get("path"), x.get("dest")
            if isinstance(p, list):
                ds = d if isinstance(d, list) else [d] * len(p)
                out.extend((u, dd, role) for u, dd in zip(p, ds))
            else:
                out.append((p, d, role))

    steps(task.get("config"))
    getters(ev.get("expected"), "expected")
    getters(ev.get("result"), "input")
    steps(ev.get("postconfig"))
    return [(u, d, r) for u, d, r in out if isinstance(u, str) and u.startswith(("http://", "https://"))]


def extension(dest):
    name = os.path.basename(str(dest or "")).lower()
    for double in (".tar.gz", ".tar.xz"):
        if name.endswith(double):
            return double
    return os.path.splitext(name)[1]


# ---- writers: each returns the bytes of a valid file, or None when it cannot


def _try(mod):
    try:
        return __import__(mod)
    except ImportError:
        return None


def xlsx(tag, finished=False):
    openpyxl = _try("openpyxl")
    if openpyxl:
        wb = openpyxl.Workbook()
        ws = wb.active
        ws.title = "Sheet1"
        ws.append(["Name", "Value"])
        ws.append([tag, 1])
        if finished:
            ws.append(["other", 2])
            _made_things(wb, ws, tag)
        buf = io.BytesIO()
        wb.save(buf)
        return buf.getvalue()
    return _zip({
        "[Content_Types].xml": '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
        "_rels/.rels": '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
        "xl/worksheets/sheet1.xml": '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Name</t></is></c><c r="B1" t="inlineStr"><is><t>Value</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>' + tag + '</t></is></c><c r="B2"><v>1</v></c></row></sheetData></worksheet>',
    })


def docx(tag, finished=False):
    docx_mod = _try("docx")
    if docx_mod:
        d = docx_mod.Document()
        first = d.add_paragraph()
        png = image("png", tag) if finished else None
        if png:
            # First: checkers pair paragraphs and runs from the start.
            first.add_run().add_picture(io.BytesIO(png))
        first.add_run(f"Stand-in document for {tag}.")
        if finished:
            from docx.shared import Inches
            p = d.add_paragraph(f"Item\t{tag}")
            p.paragraph_format.tab_stops.add_tab_stop(Inches(2))
            t = d.add_table(rows=2, cols=2)
            for i, row in enumerate(t.rows):
                for j, cell in enumerate(row.cells):
                    cell.text = f"{tag}-{i}{j}"
            d.add_paragraph("References")
            d.add_paragraph(f"Stand-in, A. ({tag}). A reference. Somewhere.")
        buf = io.BytesIO()
        d.save(buf)
        return buf.getvalue()
    return _zip({
        "[Content_Types].xml": '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
        "_rels/.rels": '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
        "word/document.xml": '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Stand-in document for ' + tag + '.</w:t></w:r></w:p></w:body></w:document>',
    })


def _made_things(wb, ws, tag):
    """A second sheet with what Calc tasks make: a bar chart of Sheet1's
    values and a pivot table summing them by name."""
    from openpyxl.chart import BarChart, Reference
    from openpyxl.pivot.cache import CacheDefinition, CacheField, CacheSource, SharedItems, WorksheetSource
    from openpyxl.pivot.table import DataField, FieldItem, Location, PivotField, RowColField, TableDefinition
    made = wb.create_sheet("Sheet2")
    chart = BarChart()
    chart.title = f"Stand-in {tag}"
    chart.add_data(Reference(ws, min_col=2, min_row=1, max_row=ws.max_row), titles_from_data=True)
    made.add_chart(chart, "D2")
    pivot = TableDefinition(
        name="StandIn", cacheId=1, dataCaption="Values",
        location=Location(ref="A1:B4", firstHeaderRow=1, firstDataRow=1, firstDataCol=1),
        pivotFields=[PivotField(axis="axisRow", showAll=False,
                                items=[FieldItem(x=0), FieldItem(x=1), FieldItem(t="default")]),
                     PivotField(dataField=True, showAll=False)],
        rowFields=[RowColField(x=0)],
        dataFields=[DataField(name="Sum of Value", fld=1, subtotal="sum")])
    pivot.cache = CacheDefinition(
        cacheSource=CacheSource(type="worksheet",
                                worksheetSource=WorksheetSource(ref=f"A1:B{ws.max_row}", sheet=ws.title)),
        cacheFields=[CacheField(name="Name", sharedItems=SharedItems()),
                     CacheField(name="Value", sharedItems=SharedItems())])
    made._pivots.append(pivot)


def pptx(tag):
    pptx_mod = _try("pptx")
    if not pptx_mod:
        return None
    p = pptx_mod.Presentation()
    s = p.slides.add_slide(p.slide_layouts[0])
    s.shapes.title.text = f"Stand-in {tag}"
    buf = io.BytesIO()
    p.save(buf)
    return buf.getvalue()


def odf(kind, tag):
    mime = {
        "odt": ("application/vnd.oasis.opendocument.text", f"<office:text><text:p>Stand-in {tag}.</text:p></office:text>"),
        "ods": ("application/vnd.oasis.opendocument.spreadsheet", f'<office:spreadsheet><table:table table:name="Sheet1"><table:table-row><table:table-cell office:value-type="string"><text:p>Stand-in {tag}</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet>'),
    }[kind]
    content = ('<?xml version="1.0" encoding="UTF-8"?><office:document-content '
               'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
               'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
               'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" office:version="1.2">'
               f"<office:body>{mime[1]}</office:body></office:document-content>")
    manifest = ('<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
                'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
                f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{mime[0]}"/>'
                '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
                "</manifest:manifest>")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        # The mimetype comes first and is stored, as ODF requires.
        z.writestr(zipfile.ZipInfo("mimetype"), mime[0], compress_type=zipfile.ZIP_STORED)
        z.writestr("content.xml", content, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("META-INF/manifest.xml", manifest, compress_type=zipfile.ZIP_DEFLATED)
    return buf.getvalue()


def _zip(parts):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, body in parts.items():
            z.writestr(name, body)
    return buf.getvalue()


def pdf(tag):
    objs = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        None,
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    stream = f"BT /F1 24 Tf 72 700 Td (Stand-in document {tag}.) Tj ET".encode()
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for i, o in enumerate(objs, 1):
        offsets.append(out.tell())
        if o is None:
            out.write(f"{i} 0 obj\n<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream\nendobj\n")
        else:
            out.write(f"{i} 0 obj\n{o}\nendobj\n".encode())
    xref = out.tell()
    out.write(f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode())
    for off in offsets:
        out.write(f"{off:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def image(fmt, tag):
    pil = _try("PIL.Image")
    if pil:
        from PIL import Image
        im = Image.new("RGB", (16, 16), _colour(tag))
        buf = io.BytesIO()
        im.save(buf, format={"jpg": "JPEG"}.get(fmt, fmt.upper()))
        return buf.getvalue()
    if fmt == "png":
        raw = b"".join(b"\x00" + bytes(_colour(tag)) * 16 for _ in range(16))

        def chunk(t, d):
            return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    if fmt == "gif":
        # A 1x1 GIF89a.
        return bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b")
    return None


def wav(tag):
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(struct.pack("<h", int(tag[:3], 16)) + b"\x00\x00" * 7999)
    return buf.getvalue()


def ffmpeg(ext, tag):
    if not shutil.which("ffmpeg"):
        return None
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "x" + ext)
        args = {
            ".mp3": ["-f", "lavfi", "-i", f"sine=frequency={200 + int(tag[:2], 16)}:duration=1"],
            ".mp4": ["-f", "lavfi", "-i", f"color=c=0x{tag[:6]}:s=64x64:d=1"],
            ".mov": ["-f", "lavfi", "-i", f"color=c=0x{tag[:6]}:s=64x64:d=1"],
        }[ext]
        r = subprocess.run(["ffmpeg", "-loglevel", "error", "-y", *args, out], capture_output=True)
        if r.returncode != 0:
            return None
        with open(out, "rb") as f:
            return f.read()


def archive(kind, tag):
    if kind == ".zip":
        return _zip({"stand-in.txt": f"Stand-in archive member {tag}.\n"})
    buf = io.BytesIO()
    mode = {".gz": "w:gz", ".tar.gz": "w:gz", ".xz": "w:xz", ".tar.xz": "w:xz"}[kind]
    with tarfile.open(fileobj=buf, mode=mode) as t:
        data = f"Stand-in archive member {tag}.\n".encode()
        info = tarfile.TarInfo("stand-in.txt")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _colour(tag):
    return (int(tag[0:2], 16), int(tag[2:4], 16), int(tag[4:6], 16))


def stand_in(ext, tag, finished=False):
    """The bytes of a stand-in for a file saved with extension `ext`, made
    different from every other by `tag` (hex digits), or None. `finished`:
    a checker's expected file (see the module docs)."""
    if ext in TEXT:
        text = TEXT[ext]
        # A comment or a trailing line where the format has one.
        mark = {".json": None, ".csv": f"{tag},0\n", ".html": f"<!-- {tag} -->\n",
                ".svg": f"<!-- {tag} -->\n", ".xml": f"<!-- {tag} -->\n",
                ".code-workspace": None}.get(ext, f"{tag}\n")
        if ext in (".json", ".code-workspace"):
            text = text.replace("{", '{"stand_in_tag": "' + tag + '", ', 1)
        elif ext in (".py", ".sh", ".bib", ".tex", ".cpp", ".css", ".js"):
            prefix = {".py": "#", ".sh": "#", ".bib": "%", ".tex": "%", ".cpp": "//", ".css": "/*",
                      ".js": "//"}[ext]
            text = text + f"{prefix} {tag}" + (" */" if ext == ".css" else "") + "\n"
        else:
            text = text + mark
        return text.encode()
    makers = {
        ".xlsx": lambda t: xlsx(t, finished), ".docx": lambda t: docx(t, finished), ".pptx": pptx,
        ".pdf": pdf,
        ".odt": lambda t: odf("odt", t), ".ods": lambda t: odf("ods", t),
        ".png": lambda t: image("png", t), ".jpg": lambda t: image("jpg", t),
        ".jpeg": lambda t: image("jpg", t), ".gif": lambda t: image("gif", t),
        ".webp": lambda t: image("webp", t),
        ".wav": wav, ".mp3": lambda t: ffmpeg(".mp3", t), ".mp4": lambda t: ffmpeg(".mp4", t),
        ".mov": lambda t: ffmpeg(".mov", t),
        ".zip": lambda t: archive(".zip", t), ".gz": lambda t: archive(".gz", t),
        ".tar.gz": lambda t: archive(".tar.gz", t), ".xz": lambda t: archive(".xz", t),
        ".tar.xz": lambda t: archive(".tar.xz", t),
    }
    make = makers.get(ext)
    return make(tag) if make else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tasks", help="OSWorld's evaluation_examples/ or any folder of task JSON files")
    ap.add_argument("out", help="the mirror folder to write")
    ap.add_argument("--force", action="store_true", help="write over stand-ins already there")
    a = ap.parse_args()
    wanted, roles = {}, defaultdict(set)
    unreadable = 0
    for root, _, files in os.walk(a.tasks):
        for name in sorted(files):
            if not name.endswith(".json"):
                continue
            try:
                with open(os.path.join(root, name), encoding="utf-8") as f:
                    task = json.load(f)
            except (OSError, ValueError):
                unreadable += 1
                continue
            if not isinstance(task, dict):
                continue
            for url, dest, role in downloads(task):
                wanted.setdefault(url, extension(dest))
                roles[url].add(role)
    made, missing, programs, finished = Counter(), defaultdict(list), [], 0
    for url, ext in sorted(wanted.items()):
        path = mirror_path(a.out, url)
        if "program" in roles[url]:
            programs.append(url)
            if os.path.exists(path) and a.force:
                os.remove(path)
            continue
        if os.path.exists(path) and not a.force:
            made[ext or "(none)"] += 1
            continue
        done = roles[url] == {"expected"}
        body = stand_in(ext, hashlib.sha256(url.encode()).hexdigest()[:12], done)
        if body is None:
            missing[ext or "(none)"].append(url)
            continue
        finished += done
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(body)
        made[ext or "(none)"] += 1
    for ext, n in sorted(made.items(), key=lambda x: -x[1]):
        print(f"{ext:18} {n:4} stand-ins")
    for ext, urls in sorted(missing.items(), key=lambda x: -len(x[1])):
        print(f"{ext:18} {len(urls):4} left out (no writer for this kind here), e.g. {urls[0]}")
    if programs:
        print(f"{'(programs)':18} {len(programs):4} left out (a task runs them; a stand-in cannot), e.g. {programs[0]}")
    total = sum(made.values())
    print(f"{total} of {len(wanted)} URLs have a stand-in in {a.out} ({finished} written as a finished "
          "task's output)" + (f"; {unreadable} files not read" if unreadable else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
