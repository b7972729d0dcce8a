//! Markup (HTML, help XML) made plain text.

/// The text of an HTML or XML document: `script`, `style` and comments
/// dropped, tags removed (block tags become line breaks), the common
/// entities decoded, runs of blank space folded.
pub fn markup_to_text(markup: &str) -> String {
    let mut out = String::with_capacity(markup.len() / 2);
    let lower = markup.to_ascii_lowercase();
    let mut i = 0;
    let bytes = markup.as_bytes();
    while i < bytes.len() {
        if bytes[i] == b'<' {
            let rest = &lower[i..];
            let skip_to = |end: &str| {
                rest.find(end)
                    .map(|e| i + e + end.len())
                    .unwrap_or(bytes.len())
            };
            if rest.starts_with("<!--") {
                i = skip_to("-->");
                continue;
            }
            if rest.starts_with("<script") {
                i = skip_to("</script>");
                continue;
            }
            if rest.starts_with("<style") {
                i = skip_to("</style>");
                continue;
            }
            let end = rest.find('>').map(|e| i + e + 1).unwrap_or(bytes.len());
            let name: String = rest[1..]
                .trim_start_matches('/')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            if matches!(
                name.as_str(),
                "p" | "br"
                    | "div"
                    | "li"
                    | "tr"
                    | "h1"
                    | "h2"
                    | "h3"
                    | "h4"
                    | "h5"
                    | "h6"
                    | "title"
                    | "section"
                    | "article"
                    | "ul"
                    | "ol"
                    | "table"
            ) {
                out.push('\n');
            }
            i = end;
            continue;
        }
        let next = markup[i..].find('<').map(|n| i + n).unwrap_or(bytes.len());
        out.push_str(&decode(&markup[i..next]));
        i = next;
    }
    fold(&out)
}

fn decode(s: &str) -> String {
    if !s.contains('&') {
        return s.to_owned();
    }
    s.replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

fn fold(s: &str) -> String {
    let lines: Vec<String> = s
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_becomes_text() {
        let h = "<html><head><style>p{}</style><script>var x=1<2;</script></head><body><h1>Title</h1><!-- c --><p>a &amp; b&nbsp;c</p><ul><li>one</li><li>two</li></ul></body></html>";
        assert_eq!(markup_to_text(h), "Title\na & b c\none\ntwo");
    }
}
