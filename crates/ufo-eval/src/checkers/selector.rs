//! A small CSS selector engine over `roxmltree` documents, covering what
//! OSWorld's accessibility-tree rules use through lxml's `CSSSelector`:
//!
//! - type selectors (`push-button`, `*`, `ns|tag`), `#id`, `.class`;
//! - attribute tests `[a]`, `[a=v]`, `[a~=v]`, `[a|=v]`, `[a^=v]`, `[a$=v]`,
//!   `[a*=v]`, `[a!=v]`, with namespaced names `[attr|id=v]` (prefixes from
//!   OSWorld's accessibility namespace map, else the document's own);
//! - pseudo-classes `:first-child`, `:last-child`, `:only-child`, `:empty`,
//!   `:root`, `:nth-child(an+b)`, `:not(compound)`, `:contains("text")`;
//! - combinators: descendant (space), child `>`, next sibling `+`,
//!   subsequent sibling `~`; selector lists with `,`.
//!
//! Unprefixed type selectors match the element's local name in any
//! namespace; unprefixed attribute names match attributes in no namespace.

use roxmltree::Node;

/// OSWorld's prefixes for the AT-SPI accessibility tree namespaces, as its
/// checkers bind them (and as the `accessibility_tree` getter writes them).
pub(crate) const NAMESPACES: &[(&str, &str)] = &[
    ("st", "uri:deskat:state.at-spi.gnome.org"),
    ("attr", "uri:deskat:attributes.at-spi.gnome.org"),
    ("cp", "uri:deskat:component.at-spi.gnome.org"),
    ("doc", "uri:deskat:document.at-spi.gnome.org"),
    ("docattr", "uri:deskat:attributes.document.at-spi.gnome.org"),
    ("txt", "uri:deskat:text.at-spi.gnome.org"),
    ("val", "uri:deskat:value.at-spi.gnome.org"),
    ("act", "uri:deskat:action.at-spi.gnome.org"),
];

/// A parsed selector list (`a, b > c`).
#[derive(Debug)]
pub(super) struct SelectorList(Vec<Complex>);

/// Compounds joined by combinators: `combs[i]` sits between `parts[i]` and
/// `parts[i + 1]`.
#[derive(Debug)]
struct Complex {
    parts: Vec<Compound>,
    combs: Vec<Comb>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Comb {
    Descendant,
    Child,
    Next,
    Subsequent,
}

/// A namespace qualifier: none written, `*|`, or `prefix|`.
#[derive(Debug, Clone, PartialEq)]
enum Ns {
    Unspecified,
    Any,
    Prefix(String),
}

#[derive(Debug, Default)]
struct Compound {
    /// `None`: any element.
    tag: Option<(Ns, String)>,
    conds: Vec<Cond>,
}

#[derive(Debug)]
enum Cond {
    Attr {
        ns: Ns,
        name: String,
        test: Option<(String, String)>,
    },
    FirstChild,
    LastChild,
    OnlyChild,
    Empty,
    Root,
    NthChild(i64, i64),
    Not(Box<Compound>),
    Contains(String),
}

impl SelectorList {
    /// Parses a selector list; the error says what is wrong where.
    pub(super) fn parse(text: &str) -> Result<Self, String> {
        let mut p = Parser {
            s: text.chars().collect(),
            i: 0,
        };
        let mut list = Vec::new();
        loop {
            list.push(p.complex()?);
            p.ws();
            match p.peek() {
                None => break,
                Some(',') => p.i += 1,
                Some(c) => return Err(format!("unexpected {c:?} at {} in {text:?}", p.i)),
            }
        }
        Ok(SelectorList(list))
    }

    /// The elements under (and including) `root` that match, in document order.
    pub(super) fn select<'a, 'i>(&self, root: Node<'a, 'i>) -> Vec<Node<'a, 'i>> {
        root.descendants()
            .filter(|n| n.is_element() && self.0.iter().any(|c| c.matches(*n)))
            .collect()
    }
}

struct Parser {
    s: Vec<char>,
    i: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }

    fn peek_at(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }

    /// Skips whitespace; true if any was skipped.
    fn ws(&mut self) -> bool {
        let start = self.i;
        while self.peek().is_some_and(char::is_whitespace) {
            self.i += 1;
        }
        self.i > start
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected {c:?} at {}", self.i))
        }
    }

    fn complex(&mut self) -> Result<Complex, String> {
        self.ws();
        let mut parts = vec![self.compound()?];
        let mut combs = Vec::new();
        loop {
            let spaced = self.ws();
            let comb = match self.peek() {
                Some('>') => Comb::Child,
                Some('+') => Comb::Next,
                Some('~') => Comb::Subsequent,
                None | Some(',') | Some(')') => break,
                Some(_) if spaced => Comb::Descendant,
                Some(c) => return Err(format!("unexpected {c:?} at {}", self.i)),
            };
            if comb != Comb::Descendant {
                self.i += 1;
                self.ws();
            }
            combs.push(comb);
            parts.push(self.compound()?);
        }
        Ok(Complex { parts, combs })
    }

    fn compound(&mut self) -> Result<Compound, String> {
        let mut c = Compound::default();
        let start = self.i;
        if matches!(self.peek(), Some('*')) || self.at_ident() {
            let first = self.name_or_star()?;
            if self.peek() == Some('|') && self.peek_at(1) != Some('=') {
                self.i += 1;
                let local = self.name_or_star()?;
                let ns = if first == "*" {
                    Ns::Any
                } else {
                    Ns::Prefix(first)
                };
                c.tag = (local != "*").then_some((ns, local));
            } else if first != "*" {
                c.tag = Some((Ns::Unspecified, first));
            }
        }
        loop {
            match self.peek() {
                Some('[') => {
                    self.i += 1;
                    c.conds.push(self.attribute()?);
                }
                Some('#') => {
                    self.i += 1;
                    let v = self.ident()?;
                    c.conds.push(Cond::Attr {
                        ns: Ns::Unspecified,
                        name: "id".into(),
                        test: Some(("=".into(), v)),
                    });
                }
                Some('.') => {
                    self.i += 1;
                    let v = self.ident()?;
                    c.conds.push(Cond::Attr {
                        ns: Ns::Unspecified,
                        name: "class".into(),
                        test: Some(("~=".into(), v)),
                    });
                }
                Some(':') => {
                    self.i += 1;
                    c.conds.push(self.pseudo()?);
                }
                _ => break,
            }
        }
        if self.i == start {
            return Err(match self.peek() {
                Some(ch) => format!("expected a selector at {}, found {ch:?}", self.i),
                None => "expected a selector, found the end".to_owned(),
            });
        }
        Ok(c)
    }

    fn attribute(&mut self) -> Result<Cond, String> {
        self.ws();
        let first = self.name_or_star()?;
        let (ns, name) = if self.peek() == Some('|') && self.peek_at(1) != Some('=') {
            self.i += 1;
            let ns = if first == "*" {
                Ns::Any
            } else {
                Ns::Prefix(first)
            };
            (ns, self.ident()?)
        } else if first == "*" {
            return Err("an attribute name cannot be *".to_owned());
        } else {
            (Ns::Unspecified, first)
        };
        self.ws();
        if self.peek() == Some(']') {
            self.i += 1;
            return Ok(Cond::Attr {
                ns,
                name,
                test: None,
            });
        }
        let op = match (self.peek(), self.peek_at(1)) {
            (Some('='), _) => "=".to_owned(),
            (Some(c @ ('~' | '|' | '^' | '$' | '*' | '!')), Some('=')) => format!("{c}="),
            _ => return Err(format!("bad attribute operator at {}", self.i)),
        };
        self.i += op.chars().count();
        self.ws();
        let value = match self.peek() {
            Some(q @ ('"' | '\'')) => {
                self.i += 1;
                self.string(q)?
            }
            _ => {
                let mut v = String::new();
                while let Some(ch) = self.peek().filter(|c| *c != ']' && !c.is_whitespace()) {
                    self.i += 1;
                    if ch == '\\' {
                        v.push(self.escape()?);
                    } else {
                        v.push(ch);
                    }
                }
                v
            }
        };
        self.ws();
        self.expect(']')?;
        Ok(Cond::Attr {
            ns,
            name,
            test: Some((op, value)),
        })
    }

    fn pseudo(&mut self) -> Result<Cond, String> {
        let name = self.ident()?.to_ascii_lowercase();
        if self.peek() != Some('(') {
            return match name.as_str() {
                "first-child" => Ok(Cond::FirstChild),
                "last-child" => Ok(Cond::LastChild),
                "only-child" => Ok(Cond::OnlyChild),
                "empty" => Ok(Cond::Empty),
                "root" => Ok(Cond::Root),
                other => Err(format!("pseudo-class :{other} is not supported")),
            };
        }
        self.i += 1;
        self.ws();
        let cond = match name.as_str() {
            "not" => Cond::Not(Box::new(self.compound()?)),
            "contains" => match self.peek() {
                Some(q @ ('"' | '\'')) => {
                    self.i += 1;
                    Cond::Contains(self.string(q)?)
                }
                _ => Cond::Contains(self.ident()?),
            },
            "nth-child" => {
                let mut arg = String::new();
                while let Some(ch) = self.peek().filter(|c| *c != ')') {
                    arg.push(ch);
                    self.i += 1;
                }
                let (a, b) = parse_nth(&arg).ok_or_else(|| format!("bad :nth-child({arg})"))?;
                Cond::NthChild(a, b)
            }
            other => return Err(format!("pseudo-class :{other}() is not supported")),
        };
        self.ws();
        self.expect(')')?;
        Ok(cond)
    }

    fn at_ident(&self) -> bool {
        match self.peek() {
            Some('-') => self
                .peek_at(1)
                .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '-' || c == '\\'),
            Some(c) => c.is_alphabetic() || c == '_' || c == '\\' || !c.is_ascii(),
            None => false,
        }
    }

    fn name_or_star(&mut self) -> Result<String, String> {
        if self.peek() == Some('*') {
            self.i += 1;
            Ok("*".to_owned())
        } else {
            self.ident()
        }
    }

    fn ident(&mut self) -> Result<String, String> {
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c == '\\' {
                self.i += 1;
                out.push(self.escape()?);
            } else if c.is_alphanumeric() || c == '-' || c == '_' || !c.is_ascii() {
                self.i += 1;
                out.push(c);
            } else {
                break;
            }
        }
        if out.is_empty() {
            Err(format!("expected a name at {}", self.i))
        } else {
            Ok(out)
        }
    }

    /// After a backslash: up to six hex digits (and one optional space) or
    /// one literal character.
    fn escape(&mut self) -> Result<char, String> {
        let mut hex = String::new();
        while hex.len() < 6 && self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
            hex.extend(self.peek());
            self.i += 1;
        }
        if hex.is_empty() {
            let c = self.peek().ok_or("a backslash at the end")?;
            self.i += 1;
            return Ok(c);
        }
        if self.peek().is_some_and(char::is_whitespace) {
            self.i += 1;
        }
        u32::from_str_radix(&hex, 16)
            .ok()
            .and_then(char::from_u32)
            .ok_or_else(|| format!("bad escape \\{hex}"))
    }

    /// A quoted string after its opening quote.
    fn string(&mut self, quote: char) -> Result<String, String> {
        let mut out = String::new();
        loop {
            match self.peek() {
                None => return Err("unterminated string".to_owned()),
                Some(c) if c == quote => {
                    self.i += 1;
                    return Ok(out);
                }
                Some('\\') => {
                    self.i += 1;
                    out.push(self.escape()?);
                }
                Some(c) => {
                    self.i += 1;
                    out.push(c);
                }
            }
        }
    }
}

/// `an+b`, `odd`, `even`, or an integer.
fn parse_nth(arg: &str) -> Option<(i64, i64)> {
    let s: String = arg
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    match s.as_str() {
        "odd" => return Some((2, 1)),
        "even" => return Some((2, 0)),
        _ => {}
    }
    match s.split_once('n') {
        None => Some((0, s.parse().ok()?)),
        Some((a, b)) => {
            let a = match a {
                "" | "+" => 1,
                "-" => -1,
                a => a.parse().ok()?,
            };
            let b = if b.is_empty() { 0 } else { b.parse().ok()? };
            Some((a, b))
        }
    }
}

fn resolve<'n>(node: Node<'n, '_>, prefix: &str) -> Option<&'n str> {
    NAMESPACES
        .iter()
        .find(|(p, _)| *p == prefix)
        .map(|(_, uri)| *uri)
        .or_else(|| node.lookup_namespace_uri(Some(prefix)))
}

impl Complex {
    fn matches(&self, node: Node<'_, '_>) -> bool {
        self.matches_from(node, self.parts.len() - 1)
    }

    /// Whether `node` matches `parts[idx]` and what lies left of it.
    fn matches_from(&self, node: Node<'_, '_>, idx: usize) -> bool {
        if !self.parts.get(idx).is_some_and(|c| c.matches(node)) {
            return false;
        }
        let Some(prev) = idx.checked_sub(1) else {
            return true;
        };
        match self.combs.get(prev) {
            Some(Comb::Child) => node
                .parent_element()
                .is_some_and(|p| self.matches_from(p, prev)),
            Some(Comb::Descendant) => node
                .ancestors()
                .skip(1)
                .filter(Node::is_element)
                .any(|p| self.matches_from(p, prev)),
            Some(Comb::Next) => node
                .prev_sibling_element()
                .is_some_and(|p| self.matches_from(p, prev)),
            Some(Comb::Subsequent) => node
                .prev_siblings()
                .skip(1)
                .filter(Node::is_element)
                .any(|p| self.matches_from(p, prev)),
            None => false,
        }
    }
}

impl Compound {
    fn matches(&self, node: Node<'_, '_>) -> bool {
        if !node.is_element() {
            return false;
        }
        if let Some((ns, local)) = &self.tag {
            let tag = node.tag_name();
            let ns_ok = match ns {
                Ns::Unspecified | Ns::Any => true,
                Ns::Prefix(p) => resolve(node, p).is_some_and(|uri| tag.namespace() == Some(uri)),
            };
            if !ns_ok || tag.name() != local {
                return false;
            }
        }
        self.conds.iter().all(|c| c.matches(node))
    }
}

impl Cond {
    fn matches(&self, node: Node<'_, '_>) -> bool {
        let siblings = || {
            node.parent()
                .into_iter()
                .flat_map(|p| p.children())
                .filter(Node::is_element)
        };
        match self {
            Cond::Attr { ns, name, test } => {
                let uri = match ns {
                    Ns::Prefix(p) => match resolve(node, p) {
                        Some(u) => Some(u),
                        None => return false,
                    },
                    _ => None,
                };
                node.attributes()
                    .filter(|a| a.name() == name)
                    .filter(|a| match ns {
                        Ns::Any => true,
                        Ns::Unspecified => a.namespace().is_none(),
                        Ns::Prefix(_) => a.namespace() == uri,
                    })
                    .any(|a| {
                        test.as_ref()
                            .is_none_or(|(op, v)| attr_test(op, a.value(), v))
                    })
                    || (test.as_ref().is_some_and(|(op, _)| op == "!=")
                        && !node.attributes().any(|a| a.name() == name))
            }
            Cond::FirstChild => node.prev_sibling_element().is_none(),
            Cond::LastChild => node.next_sibling_element().is_none(),
            Cond::OnlyChild => {
                node.prev_sibling_element().is_none() && node.next_sibling_element().is_none()
            }
            Cond::Empty => !node.has_children(),
            Cond::Root => node.parent_element().is_none(),
            Cond::NthChild(a, b) => {
                let pos = siblings()
                    .position(|s| s == node)
                    .map_or(0, |p| p as i64 + 1);
                if *a == 0 {
                    pos == *b
                } else {
                    let d = pos - b;
                    d % a == 0 && d / a >= 0
                }
            }
            Cond::Not(inner) => !inner.matches(node),
            Cond::Contains(text) => {
                let all: String = node
                    .descendants()
                    .filter(|n| n.is_text())
                    .filter_map(|n| n.text())
                    .collect();
                all.contains(text.as_str())
            }
        }
    }
}

fn attr_test(op: &str, got: &str, want: &str) -> bool {
    match op {
        "=" => got == want,
        "!=" => got != want,
        "~=" => !want.is_empty() && got.split_whitespace().any(|w| w == want),
        "|=" => got == want || got.strip_prefix(want).is_some_and(|r| r.starts_with('-')),
        "^=" => !want.is_empty() && got.starts_with(want),
        "$=" => !want.is_empty() && got.ends_with(want),
        "*=" => !want.is_empty() && got.contains(want),
        _ => false,
    }
}
