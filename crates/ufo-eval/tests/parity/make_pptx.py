"""Writes the decks the compare_pptx_files differential test compares.

Usage: python make_pptx.py OUTDIR

A base deck (title slide, a content slide with formatted runs, notes, a
picture and a solid background, a slide with a table, a group, a shape and
a connector) and variants of it, each changing one property the metric
looks at, by a little or a lot. Writes OUTDIR/<name>.pptx for each and
OUTDIR/manifest.json listing the names, the base first.
"""

import json
import os
import sys

from lxml import etree
from PIL import Image
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.enum.text import PP_ALIGN
from pptx.oxml.ns import qn
from pptx.util import Emu, Pt


def base(out):
    png = os.path.join(out, "pixel.png")
    Image.new("RGB", (40, 30), (200, 30, 30)).save(png)
    prs = Presentation()
    s1 = prs.slides.add_slide(prs.slide_layouts[0])
    s1.shapes.title.text = "Quarterly Review"
    s1.placeholders[1].text = "Team A"

    s2 = prs.slides.add_slide(prs.slide_layouts[1])
    s2.shapes.title.text = "Agenda"
    body = s2.placeholders[1].text_frame
    body.text = "Goals"
    p = body.add_paragraph()
    p.level = 1
    r = p.add_run()
    r.text = "Revenue "
    r.font.bold = True
    r.font.size = Pt(20)
    r2 = p.add_run()
    r2.text = "growth"
    r2.font.italic = True
    r2.font.name = "Arial"
    r2.font.color.rgb = RGBColor(0x12, 0x34, 0x56)
    r2.font.underline = True
    p3 = body.add_paragraph()
    p3.text = "Risks"
    box = s2.shapes.add_textbox(Emu(914400), Emu(5000000), Emu(3000000), Emu(600000))
    box.text_frame.text = "Elaborate on what you want to discuss."
    s2.shapes.add_picture(png, Emu(5000000), Emu(1500000), Emu(2000000), Emu(1500000))
    s2.notes_slide.notes_text_frame.text = "Speaker notes"
    s2.background.fill.solid()
    s2.background.fill.fore_color.rgb = RGBColor(0xF0, 0xF0, 0xE0)

    s3 = prs.slides.add_slide(prs.slide_layouts[5])
    s3.shapes.title.text = "Product Comparison"
    table = s3.shapes.add_table(3, 2, Emu(914400), Emu(3800000), Emu(6000000), Emu(1200000)).table
    for i, row in enumerate([["Name", "Price"], ["Basic", "10"], ["Pro", "25"]]):
        for j, v in enumerate(row):
            table.cell(i, j).text = v
    table.cell(0, 0).text_frame.paragraphs[0].runs[0].font.bold = True
    group = s3.shapes.add_group_shape()
    g1 = group.shapes.add_textbox(Emu(100000), Emu(1500000), Emu(2000000), Emu(400000))
    g1.text_frame.text = "Grouped one"
    g2 = group.shapes.add_textbox(Emu(2200000), Emu(1500000), Emu(2000000), Emu(400000))
    g2.text_frame.text = "Grouped two"
    rect = s3.shapes.add_shape(MSO_SHAPE.RECTANGLE, Emu(6500000), Emu(1500000), Emu(1500000), Emu(800000))
    rect.text_frame.text = "Box"
    s3.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, Emu(100000), Emu(3000000), Emu(4000000), Emu(3000000))
    return prs


def shape(prs, slide, i):
    return list(prs.slides[slide].shapes)[i]


def para(prs, slide, i, k):
    return shape(prs, slide, i).text_frame.paragraphs[k]


def run(prs, slide, i, k, j):
    return para(prs, slide, i, k).runs[j]


def move(dx=0, dy=0, dw=0, dh=0, slide=1, i=2):
    def f(prs):
        s = shape(prs, slide, i)
        s.left, s.top = s.left + dx, s.top + dy
        s.width, s.height = s.width + dw, s.height + dh
    return f


def set_attr(obj_fn, name, value):
    def f(prs):
        setattr(obj_fn(prs), name, value)
    return f


def add_bullet(prs):
    pPr = para(prs, 1, 1, 2)._p.get_or_add_pPr()
    bu = etree.SubElement(pPr, qn("a:buChar"))
    bu.set("char", "•")


def explicit_level_zero(prs):
    para(prs, 1, 1, 0)._p.get_or_add_pPr().set("lvl", "0")


def scheme_color(prs):
    rPr = run(prs, 1, 1, 1, 1)._r.get_or_add_rPr()
    fill = rPr.find(qn("a:solidFill"))
    for c in list(fill):
        fill.remove(c)
    etree.SubElement(fill, qn("a:schemeClr")).set("val", "accent1")


def strike(prs):
    run(prs, 1, 1, 1, 0)._r.get_or_add_rPr().set("strike", "sngStrike")


def split_run(prs):
    p = para(prs, 1, 1, 2)
    p.runs[0].text = "Ri"
    p.add_run().text = "sks"


def no_background(prs):
    bg = prs.slides[1]._element.cSld.bg
    bg.getparent().remove(bg)


def scheme_background(prs):
    fill = prs.slides[1]._element.cSld.bg.bgPr.find(qn("a:solidFill"))
    for c in list(fill):
        fill.remove(c)
    etree.SubElement(fill, qn("a:schemeClr")).set("val", "bg1")


def add_slide(prs):
    prs.slides.add_slide(prs.slide_layouts[6])


def add_shape(prs):
    prs.slides[0].shapes.add_textbox(Emu(0), Emu(0), Emu(100000), Emu(100000)).text_frame.text = "x"


def table_cell(text=None, bold=None, color=None):
    def f(prs):
        cell = shape(prs, 2, 1).table.cell(1, 1)
        if text is not None:
            cell.text = text
        r = cell.text_frame.paragraphs[0].runs[0]
        if bold is not None:
            r.font.bold = bold
        if color is not None:
            r.font.color.rgb = color
    return f


def group_child(text=None, align=None):
    def f(prs):
        g = list(shape(prs, 2, 2).shapes)[1]
        if text is not None:
            g.text_frame.text = text
        if align is not None:
            g.text_frame.paragraphs[0].alignment = align
    return f


def title_own_position(dy):
    def f(prs):
        t = shape(prs, 2, 0)
        t.left, t.top, t.width, t.height = t.left, t.top + dy, t.width, t.height
    return f


def layout_title_moved(prs):
    layout = prs.slides[0].slide_layout
    t = layout.placeholders[0]
    t.top = t.top + 500000


VARIANTS = [
    ("same", lambda prs: None),
    ("moved a little", move(dx=2000)),
    ("moved", move(dx=200000)),
    ("resized", move(dw=300000)),
    ("taller", move(dh=300000)),
    ("picture resized", move(dw=50000, dh=50000, i=3)),
    ("picture moved", move(dx=-800000, dy=-300000, i=3)),
    ("table moved down", move(dy=400000, slide=2, i=1)),
    ("title own position", title_own_position(0)),
    ("title moved down", title_own_position(900000)),
    ("layout title moved", layout_title_moved),
    ("title text", set_attr(lambda p: shape(p, 0, 0).text_frame, "text", "Annual Review")),
    ("title trailing space", set_attr(lambda p: shape(p, 0, 0).text_frame, "text", "Quarterly Review ")),
    ("paragraph added", lambda p: shape(p, 1, 1).text_frame.add_paragraph()),
    ("centered", set_attr(lambda p: para(p, 1, 1, 0), "alignment", PP_ALIGN.CENTER)),
    ("explicit left", set_attr(lambda p: para(p, 1, 1, 0), "alignment", PP_ALIGN.LEFT)),
    ("level", set_attr(lambda p: para(p, 1, 1, 1), "level", 2)),
    ("explicit level 0", explicit_level_zero),
    ("split run", split_run),
    ("font name", set_attr(lambda p: run(p, 1, 1, 1, 1).font, "name", "Calibri")),
    ("font size", set_attr(lambda p: run(p, 1, 1, 1, 0).font, "size", Pt(21))),
    ("bold off", set_attr(lambda p: run(p, 1, 1, 1, 1).font, "bold", False)),
    ("bold on", set_attr(lambda p: run(p, 1, 1, 1, 1).font, "bold", True)),
    ("bold removed", set_attr(lambda p: run(p, 1, 1, 1, 0).font, "bold", None)),
    ("italic off", set_attr(lambda p: run(p, 1, 1, 1, 0).font, "italic", False)),
    ("italic removed", set_attr(lambda p: run(p, 1, 1, 1, 1).font, "italic", None)),
    ("color", set_attr(lambda p: run(p, 1, 1, 1, 1).font.color, "rgb", RGBColor(0x12, 0x34, 0x57))),
    ("scheme color", scheme_color),
    ("underline off", set_attr(lambda p: run(p, 1, 1, 1, 1).font, "underline", False)),
    ("underline removed", set_attr(lambda p: run(p, 1, 1, 1, 1).font, "underline", None)),
    ("underline on elsewhere", set_attr(lambda p: run(p, 1, 1, 1, 0).font, "underline", True)),
    ("strike", strike),
    ("bullet", add_bullet),
    ("background", set_attr(lambda p: p.slides[1].background.fill.fore_color, "rgb", RGBColor(0, 0, 0))),
    ("no background", no_background),
    ("scheme background", scheme_background),
    ("notes", set_attr(lambda p: p.slides[1].notes_slide.notes_text_frame, "text", "Other notes")),
    ("notes padded", set_attr(lambda p: p.slides[1].notes_slide.notes_text_frame, "text", " Speaker notes\n")),
    ("notes on slide 1", set_attr(lambda p: p.slides[0].notes_slide.notes_text_frame, "text", "")),
    ("a slide more", add_slide),
    ("a shape more", add_shape),
    ("table cell text", table_cell(text="12")),
    ("table cell bold", table_cell(bold=True)),
    ("table cell bold off", table_cell(bold=False)),
    ("table cell color", table_cell(color=RGBColor(255, 0, 0))),
    ("group text", group_child(text="Grouped 2")),
    ("group alignment", group_child(align=PP_ALIGN.RIGHT)),
    ("shift box text", set_attr(lambda p: shape(p, 1, 2).text_frame, "text", "Something else")),
]


def main(out):
    names = []
    for name, change in VARIANTS:
        prs = base(out)
        change(prs)
        file = name.replace(" ", "_") + ".pptx"
        prs.save(os.path.join(out, file))
        names.append({"name": name, "file": file})
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(names, f)


if __name__ == "__main__":
    main(sys.argv[1])
