"""Writes the PDFs of the compare_pdfs / compare_pdf_images parity cases.

Usage: python make_pdfs.py OUT_DIR

Two producers from the parity venv: ReportLab (base-14 fonts, content
streams ASCII85 + Flate encoded) and PyMuPDF (its own writer, images).
LibreOffice's PDFs are made by the Rust test itself (soffice).
"""

import os
import sys

import pymupdf
from PIL import Image, ImageDraw
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

LINES = [
    "Invoice 243729 issued to Example Office Supplies.",
    "Total due: 1,250.00 USD, payable within thirty days.",
    "Thank you for your business!",
]


def reportlab(path, pages, size=12):
    c = canvas.Canvas(path, pagesize=A4)
    for page in pages:
        c.setFont("Helvetica", size)
        y = 800
        for line in page:
            c.drawString(72, y, line)
            y -= size * 1.6
        c.showPage()
    c.save()


def mupdf(path, pages, origin=(72, 72), size=11, width=None):
    doc = pymupdf.open()
    for page in pages:
        p = doc.new_page() if width is None else doc.new_page(width=width, height=400)
        p.insert_text(origin, "\n".join(page), fontsize=size)
    doc.save(path)


def picture(colour, box, text):
    im = Image.new("RGB", (240, 320), "white")
    d = ImageDraw.Draw(im)
    d.rectangle(box, fill=colour)
    d.text((30, 150), text, fill="black")
    return im


def main(out):
    j = lambda name: os.path.join(out, name)
    changed = [LINES[0], LINES[1].replace("thirty", "sixty"), LINES[2]]
    reportlab(j("rl.pdf"), [LINES])
    reportlab(j("rl_word.pdf"), [changed])
    reportlab(j("rl_big.pdf"), [LINES], size=16)
    reportlab(j("rl_two.pdf"), [LINES, ["Page two: terms and conditions."]])
    mupdf(j("mu.pdf"), [LINES])
    mupdf(j("mu_word.pdf"), [changed])
    # The same text laid out otherwise: further down, smaller, one line
    # split in two.
    mupdf(j("mu_layout.pdf"), [[LINES[0], LINES[1][:20], LINES[1][20:], LINES[2]]],
          origin=(150, 300), size=9)
    mupdf(j("mu_two.pdf"), [LINES, ["Page two: terms and conditions."]])
    mupdf(j("mu_three.pdf"), [LINES, ["Page two: terms and conditions."], ["Page three."]])
    # Text running off the page's right edge and off its top.
    mupdf(j("mu_offpage.pdf"), [["A line long enough to run well past the right edge of this narrow page"]],
          origin=(20, 40), width=200)
    mupdf(j("mu_blank.pdf"), [[]])
    mupdf(j("mu_blank2.pdf"), [[], []])
    doc = pymupdf.open()
    p = doc.new_page()
    p.insert_text((72, 72), "Rotated page text", fontsize=12)
    p.set_rotation(90)
    doc.save(j("mu_rotated.pdf"))
    # Pictures as PDFs: Pillow's writer and PyMuPDF's.
    # The red receipt and a blue one laid out otherwise (a bar down the
    # side, not across the top): their perceptual hashes differ.
    red = picture((200, 30, 30), (20, 20, 200, 90), "RECEIPT total 12.50")
    blue = picture((30, 30, 200), (150, 20, 220, 300), "RECEIPT total 99.00")
    red.save(j("img_red.pdf"))
    blue.save(j("img_blue.pdf"))
    red.save(j("red.jpg"), quality=90)
    blue.save(j("blue.jpg"), quality=90)
    for name, src in (("mu_img_red.pdf", "red.jpg"), ("mu_img_blue.pdf", "blue.jpg")):
        doc = pymupdf.open()
        p = doc.new_page(width=240, height=320)
        p.insert_image(p.rect, filename=j(src))
        doc.save(j(name))
    # Two pictures: red then blue, red twice (two pages), and one image
    # object shown on two pages.
    for name, srcs in (("mu_img_rb.pdf", ("red.jpg", "blue.jpg")), ("mu_img_rr.pdf", ("red.jpg", "red.jpg"))):
        doc = pymupdf.open()
        for src in srcs:
            p = doc.new_page(width=240, height=320)
            p.insert_image(p.rect, filename=j(src))
        doc.save(j(name))
    doc = pymupdf.open()
    first = doc.new_page(width=240, height=320)
    xref = first.insert_image(first.rect, filename=j("red.jpg"))
    second = doc.new_page(width=240, height=320)
    second.insert_image(second.rect, xref=xref)
    doc.save(j("mu_img_twice.pdf"))


if __name__ == "__main__":
    main(sys.argv[1])
