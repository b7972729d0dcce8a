//! OpenDocument text files read the way odfpy's `load` reads them, for
//! `compare_docx_files` on two `.odt` files and `check_highlighted_words`.
//!
//! odfpy loads the parts the manifest lists, `content.xml` before
//! `styles.xml`; `getElementsByType` then lists elements in that order
//! (body paragraphs first, then the headers' and footers'), and the
//! automatic styles of both parts form one list, content's first. A
//! paragraph's text (OSWorld's `get_paragraph_texts_odt`) is its own text
//! nodes and its direct `text:span`s' text nodes, nothing deeper: no
//! `text:s` spaces, tabs, links or nested spans.

use std::io::Read;
use std::path::Path;

use roxmltree::{Document, Node};

const TEXT: &str = "urn:oasis:names:tc:opendocument:xmlns:text:1.0";
const STYLE: &str = "urn:oasis:names:tc:opendocument:xmlns:style:1.0";
const OFFICE: &str = "urn:oasis:names:tc:opendocument:xmlns:office:1.0";
const FO: &str = "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0";
const MANIFEST: &str = "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0";

/// What an `office:automatic-styles` child is, for odfpy's
/// `getAttribute`.
#[derive(Debug)]
enum AutoStyle {
    /// A style with a `style:name` (`None`: not set), and its children.
    Named(Option<String>, Vec<Property>),
    /// A text node or an element whose `getAttribute('name')` raises.
    Raises(String),
}

/// A style's child, for `getAttribute('backgroundcolor')`.
#[derive(Debug)]
enum Property {
    /// A `style:*-properties` element that takes `fo:background-color`.
    Background(Option<String>),
    /// Anything else (its `getAttribute` raises).
    Raises(String),
}

/// The parts of a loaded `.odt` the checkers read.
#[derive(Debug)]
pub(super) struct Odt {
    /// Every `text:p`'s text, content's then styles'.
    pub(super) paragraphs: Vec<String>,
    /// Every `text:span`'s `text:style-name`, in the same order.
    spans: Vec<Option<String>>,
    automatic_styles: Vec<AutoStyle>,
}

/// The `style:*-properties` elements whose odfpy grammar allows
/// `fo:background-color`.
const BACKGROUND_PROPERTIES: &[&str] = &[
    "text-properties",
    "paragraph-properties",
    "graphic-properties",
    "table-cell-properties",
    "table-properties",
    "table-row-properties",
    "section-properties",
    "page-layout-properties",
    "header-footer-properties",
];

/// The automatic style elements whose grammar has `style:name`.
fn named_style(n: Node<'_, '_>) -> bool {
    let name = n.tag_name().name();
    match n.tag_name().namespace() {
        Some(STYLE) => matches!(name, "style" | "page-layout"),
        Some(TEXT) => matches!(name, "list-style" | "outline-style"),
        Some("urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0") => name.ends_with("-style"),
        _ => false,
    }
}

/// Loads `path` as odfpy does; an error where `load` raises (not a zip,
/// no manifest, a listed part missing or not well-formed XML).
pub(super) fn read(path: &Path) -> Result<Odt, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
    let mut part = |name: &str| -> Result<Option<String>, String> {
        let mut f = match zip.by_name(name) {
            Ok(f) => f,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(format!("{name}: {e}")),
        };
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes)
            .map_err(|e| format!("{name}: {e}"))?;
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| format!("{name} is not UTF-8"))
    };
    let manifest = part("META-INF/manifest.xml")?.ok_or("no META-INF/manifest.xml")?;
    let manifest = Document::parse(&manifest).map_err(|e| format!("manifest: {e}"))?;
    let listed: Vec<&str> = manifest
        .descendants()
        .filter(|n| n.has_tag_name((MANIFEST, "file-entry")))
        .filter_map(|n| n.attribute((MANIFEST, "full-path")))
        .collect();
    let mut odt = Odt {
        paragraphs: Vec::new(),
        spans: Vec::new(),
        automatic_styles: Vec::new(),
    };
    for name in ["settings.xml", "meta.xml", "content.xml", "styles.xml"] {
        if !listed.contains(&name) {
            continue;
        }
        let xml = part(name)?.ok_or_else(|| format!("{name} is listed but missing"))?;
        let doc = Document::parse(&xml).map_err(|e| format!("{name}: {e}"))?;
        if matches!(name, "content.xml" | "styles.xml") {
            collect(&doc, &mut odt);
        }
    }
    Ok(odt)
}

/// Adds a part's paragraphs, spans and automatic styles.
fn collect(doc: &Document<'_>, odt: &mut Odt) {
    for n in doc.descendants() {
        if n.has_tag_name((TEXT, "p")) {
            let mut text = String::new();
            for c in n.children() {
                if let Some(t) = c.is_text().then(|| c.text()).flatten() {
                    text.push_str(t);
                } else if c.has_tag_name((TEXT, "span")) {
                    for g in c.children().filter(Node::is_text) {
                        text.push_str(g.text().unwrap_or(""));
                    }
                }
            }
            odt.paragraphs.push(text);
        } else if n.has_tag_name((TEXT, "span")) {
            odt.spans
                .push(n.attribute((TEXT, "style-name")).map(str::to_owned));
        } else if n.has_tag_name((OFFICE, "automatic-styles")) {
            for s in n.children().filter(|c| c.is_element() || c.is_text()) {
                odt.automatic_styles.push(auto_style(s));
            }
        }
    }
}

/// One automatic-styles child as `getAttribute` sees it.
fn auto_style(s: Node<'_, '_>) -> AutoStyle {
    if !s.is_element() {
        return AutoStyle::Raises("a text node among the automatic styles".into());
    }
    if !named_style(s) {
        return AutoStyle::Raises(format!("{} has no name attribute", s.tag_name().name()));
    }
    let props = s
        .children()
        .filter(|c| c.is_element() || c.is_text())
        .map(|c| {
            let takes = c.tag_name().namespace() == Some(STYLE)
                && BACKGROUND_PROPERTIES.contains(&c.tag_name().name());
            if c.is_element() && takes {
                Property::Background(c.attribute((FO, "background-color")).map(str::to_owned))
            } else {
                Property::Raises(format!(
                    "{} has no background-color attribute",
                    if c.is_text() {
                        "a text node"
                    } else {
                        c.tag_name().name()
                    }
                ))
            }
        })
        .collect();
    AutoStyle::Named(s.attribute((STYLE, "name")).map(str::to_owned), props)
}

impl Odt {
    /// OSWorld's search for a span whose automatic style has a yellow
    /// (`#ffff00`) background: an error where odfpy's `getAttribute`
    /// raises on the way.
    pub(super) fn highlighted(&self) -> Result<bool, String> {
        for name in self.spans.iter().flatten().filter(|n| !n.is_empty()) {
            let mut found = false;
            for style in &self.automatic_styles {
                match style {
                    AutoStyle::Raises(why) => return Err(why.clone()),
                    AutoStyle::Named(n, props) if n.as_ref() == Some(name) => {
                        for p in props {
                            match p {
                                Property::Raises(why) => return Err(why.clone()),
                                Property::Background(c) if c.as_deref() == Some("#ffff00") => {
                                    found = true;
                                    break;
                                }
                                Property::Background(_) => {}
                            }
                        }
                    }
                    AutoStyle::Named(..) => {}
                }
            }
            if found {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
