//! The zip package under a deck, read as python-pptx opens it: parts by
//! name, relationships resolved against their part's folder, XML parsed
//! with the errors python-pptx would raise.

use std::collections::HashMap;
use std::path::Path;

use roxmltree::{Document, Node};

use super::super::docx::zip_part;
use super::{Py, REL};

/// A package: its zip and the parts read so far.
pub(super) struct Package {
    pub(super) zip: zip::ZipArchive<std::fs::File>,
}

impl Package {
    pub(super) fn part(&mut self, name: &str) -> Py<String> {
        zip_part(&mut self.zip, name)?.ok_or_else(|| format!("{name} is missing"))
    }

    /// The relationships of `part` by id: (type, resolved part name).
    pub(super) fn rels(&mut self, part: &str) -> Py<HashMap<String, (String, String)>> {
        let (dir, file) = part.rsplit_once('/').unwrap_or(("", part));
        let name = if dir.is_empty() {
            format!("_rels/{file}.rels")
        } else {
            format!("{dir}/_rels/{file}.rels")
        };
        let Some(xml) = zip_part(&mut self.zip, &name)? else {
            return Ok(HashMap::new());
        };
        let doc = parse(&xml)?;
        let mut out = HashMap::new();
        for r in doc.root_element().children() {
            if !r.has_tag_name((REL, "Relationship"))
                || r.attribute("TargetMode") == Some("External")
            {
                continue;
            }
            let (Some(id), Some(ty), Some(target)) = (
                r.attribute("Id"),
                r.attribute("Type"),
                r.attribute("Target"),
            ) else {
                continue;
            };
            out.insert(id.to_owned(), (ty.to_owned(), resolve(dir, target)));
        }
        Ok(out)
    }

    /// The part `part` relates to with a relationship type ending `kind`.
    pub(super) fn related(&mut self, part: &str, kind: &str) -> Py<Option<String>> {
        let rels = self.rels(part)?;
        let mut found: Vec<_> = rels
            .into_iter()
            .filter(|(_, (t, _))| t.rsplit('/').next() == Some(kind))
            .collect();
        found.sort();
        Ok(found.into_iter().next().map(|(_, (_, p))| p))
    }
}

/// A relationship target resolved against the source part's folder.
fn resolve(dir: &str, target: &str) -> String {
    let mut parts: Vec<&str> = if target.starts_with('/') {
        Vec::new()
    } else {
        dir.split('/').filter(|s| !s.is_empty()).collect()
    };
    for seg in target.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

pub(super) fn parse(xml: &str) -> Py<Document<'_>> {
    Document::parse(xml).map_err(|e| e.to_string())
}

/// The first child named `(ns, name)`.
pub(super) fn child<'a, 'i>(n: Node<'a, 'i>, ns: &str, name: &str) -> Option<Node<'a, 'i>> {
    n.children().find(|c| c.has_tag_name((ns, name)))
}

/// Follows a path of `(ns, name)` children.
pub(super) fn path<'a, 'i>(n: Node<'a, 'i>, steps: &[(&str, &str)]) -> Option<Node<'a, 'i>> {
    steps
        .iter()
        .try_fold(n, |node, (ns, name)| child(node, ns, name))
}

/// The package at `path`, its presentation part's name and that part's XML.
pub(super) fn open_presentation(path: &Path) -> Py<(Package, String, String)> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let zip = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
    let mut pkg = Package { zip };
    let pres = pkg
        .related("", "officeDocument")?
        .ok_or("no presentation part")?;
    let pres_xml = pkg.part(&pres)?;
    Ok((pkg, pres, pres_xml))
}
