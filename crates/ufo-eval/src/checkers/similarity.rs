//! String and sequence similarity as OSWorld's Python libraries compute it.
//!
//! - [`indel_ratio`] is rapidfuzz's `fuzz.ratio / 100`: the normalised Indel
//!   similarity `2·LCS / (len(a) + len(b))` over Unicode scalar values (two
//!   empty strings score 1).
//! - [`sequence_ratio`] is `difflib.SequenceMatcher(a=…, b=…).ratio()` with
//!   its defaults (no junk function, the "autojunk" popularity heuristic for
//!   sequences of 200 items or more).

use std::collections::HashMap;
use std::hash::Hash;

/// rapidfuzz `fuzz.ratio(a, b) / 100`: `2·LCS / (|a| + |b|)`, 1.0 for two
/// empty strings.
pub(super) fn indel_ratio(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    // The shorter string is the bit pattern: fewer words per step.
    let lcs = if a.len() <= b.len() {
        lcs_bits(&a, &b)
    } else {
        lcs_bits(&b, &a)
    };
    (2 * lcs) as f64 / total as f64
}

/// Length of the longest common subsequence of `a` and `b`, computed 64
/// positions of `a` at a time (Hyyrö's bit-parallel LCS, as rapidfuzz
/// does): `O(|a|·|b| / 64)`, so that two documents' text (tens of thousands
/// of characters each, `compare_pdfs`) compare in well under a second.
fn lcs_bits(a: &[char], b: &[char]) -> usize {
    if a.is_empty() || b.is_empty() {
        return 0;
    }
    let words = a.len().div_ceil(64);
    // For each character of `a`, the positions where it occurs.
    let mut positions: HashMap<char, Vec<u64>> = HashMap::new();
    for (i, c) in a.iter().enumerate() {
        positions.entry(*c).or_insert_with(|| vec![0; words])[i / 64] |= 1 << (i % 64);
    }
    // A zero bit in `row` marks a position of `a` that ends a match.
    let mut row = vec![u64::MAX; words];
    for c in b {
        let Some(matches) = positions.get(c) else {
            continue;
        };
        let mut carry = false;
        for (r, m) in row.iter_mut().zip(matches) {
            let u = *r & m;
            let (sum, c1) = r.overflowing_add(u);
            let (sum, c2) = sum.overflowing_add(u64::from(carry));
            carry = c1 || c2;
            *r = sum | (*r & !u);
        }
    }
    let tail = a.len() % 64;
    row.iter()
        .enumerate()
        .map(|(w, r)| {
            let zeros = !r;
            let zeros = if w + 1 == words && tail != 0 {
                zeros & ((1u64 << tail) - 1)
            } else {
                zeros
            };
            zeros.count_ones() as usize
        })
        .sum()
}

/// Length of the longest common subsequence (classic two-row dynamic
/// programme): the reference [`lcs_bits`] is tested against.
#[cfg(test)]
fn lcs_len<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    if a.is_empty() || b.is_empty() {
        return 0;
    }
    let mut prev = vec![0usize; b.len() + 1];
    let mut cur = vec![0usize; b.len() + 1];
    for x in a {
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                cur[j].max(prev[j + 1])
            };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// `difflib.SequenceMatcher(None, a, b).ratio()`: `2·M / (|a| + |b|)` where
/// `M` counts the items in the Ratcliff/Obershelp matching blocks; 1.0 when
/// both are empty.
pub(super) fn sequence_ratio<T: Eq + Hash>(a: &[T], b: &[T]) -> f64 {
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    let matcher = Matcher::new(a, b);
    (2 * matcher.matched()) as f64 / total as f64
}

/// The state of one `SequenceMatcher` comparison.
struct Matcher<'a, T> {
    a: &'a [T],
    b: &'a [T],
    /// Where each (non-popular) item of `b` occurs, ascending.
    b2j: HashMap<&'a T, Vec<usize>>,
}

impl<'a, T: Eq + Hash> Matcher<'a, T> {
    fn new(a: &'a [T], b: &'a [T]) -> Self {
        let mut b2j: HashMap<&T, Vec<usize>> = HashMap::new();
        for (j, item) in b.iter().enumerate() {
            b2j.entry(item).or_default().push(j);
        }
        // autojunk: in long sequences, items occurring in more than 1% of
        // positions do not start a match (they may still extend one).
        if b.len() >= 200 {
            let limit = b.len() / 100 + 1;
            b2j.retain(|_, js| js.len() <= limit);
        }
        Self { a, b, b2j }
    }

    /// The longest matching block in `a[alo..ahi]` × `b[blo..bhi]`, earliest
    /// in `a` (then `b`) on ties: `(i, j, size)`.
    fn longest(&self, alo: usize, ahi: usize, blo: usize, bhi: usize) -> (usize, usize, usize) {
        let (mut besti, mut bestj, mut best) = (alo, blo, 0usize);
        let mut j2len: HashMap<usize, usize> = HashMap::new();
        for i in alo..ahi {
            let mut next: HashMap<usize, usize> = HashMap::new();
            if let Some(js) = self.b2j.get(&self.a[i]) {
                for &j in js {
                    if j < blo {
                        continue;
                    }
                    if j >= bhi {
                        break;
                    }
                    let k = j
                        .checked_sub(1)
                        .and_then(|p| j2len.get(&p))
                        .copied()
                        .unwrap_or(0)
                        + 1;
                    next.insert(j, k);
                    if k > best {
                        besti = i + 1 - k;
                        bestj = j + 1 - k;
                        best = k;
                    }
                }
            }
            j2len = next;
        }
        // Extend with equal items on both sides (popular items included).
        while besti > alo && bestj > blo && self.a[besti - 1] == self.b[bestj - 1] {
            besti -= 1;
            bestj -= 1;
            best += 1;
        }
        while besti + best < ahi
            && bestj + best < bhi
            && self.a[besti + best] == self.b[bestj + best]
        {
            best += 1;
        }
        (besti, bestj, best)
    }

    /// Total size of all matching blocks.
    fn matched(&self) -> usize {
        let mut total = 0;
        let mut queue = vec![(0, self.a.len(), 0, self.b.len())];
        while let Some((alo, ahi, blo, bhi)) = queue.pop() {
            let (i, j, k) = self.longest(alo, ahi, blo, bhi);
            if k == 0 {
                continue;
            }
            total += k;
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
        total
    }
}

/// Python's `str.splitlines()`: splits on `\n`, `\r\n`, `\r`, `\v`, `\f`,
/// `\x1c`–`\x1e`, `\x85`, U+2028 and U+2029; no empty last line after a
/// final terminator.
pub(super) fn py_splitlines(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let is_break = matches!(
            c,
            '\n' | '\r'
                | '\u{0b}'
                | '\u{0c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if !is_break {
            continue;
        }
        out.push(&s[start..i]);
        let mut end = i + c.len_utf8();
        if c == '\r'
            && let Some(&(j, '\n')) = chars.peek()
        {
            end = j + 1;
            chars.next();
        }
        start = end;
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn indel_ratio_matches_rapidfuzz_values() {
        // fuzz.ratio("this is a test", "this is a test!") == 96.55…
        assert!(close(
            indel_ratio("this is a test", "this is a test!"),
            28.0 / 29.0
        ));
        assert!(close(indel_ratio("", ""), 1.0));
        assert!(close(indel_ratio("abc", ""), 0.0));
        assert!(close(indel_ratio("abc", "xyz"), 0.0));
        // "kitten"/"sitting": LCS "ittn" = 4 → 8/13
        assert!(close(indel_ratio("kitten", "sitting"), 8.0 / 13.0));
        assert!(close(indel_ratio("héllo", "héllo"), 1.0));
    }

    #[test]
    fn bit_parallel_lcs_equals_the_dynamic_programme() {
        // A small deterministic generator: strings over a few letters, of
        // lengths across the 64-bit word boundaries.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..200 {
            let la = (next() % 200) as usize;
            let lb = (next() % 200) as usize;
            let a: Vec<char> = (0..la)
                .map(|_| char::from(b'a' + (next() % 4) as u8))
                .collect();
            let b: Vec<char> = (0..lb)
                .map(|_| char::from(b'a' + (next() % 4) as u8))
                .collect();
            assert_eq!(lcs_bits(&a, &b), lcs_len(&a, &b), "{a:?} {b:?}");
        }
    }

    #[test]
    fn sequence_ratio_matches_difflib_values() {
        // SequenceMatcher(None, "abcd", "bcde").ratio() == 0.75
        let a: Vec<char> = "abcd".chars().collect();
        let b: Vec<char> = "bcde".chars().collect();
        assert!(close(sequence_ratio(&a, &b), 0.75));
        // Ratcliff/Obershelp is not LCS: "abxcd" vs "abcd" → blocks ab, cd
        let a: Vec<char> = "abxcd".chars().collect();
        let b: Vec<char> = "abcd".chars().collect();
        assert!(close(sequence_ratio(&a, &b), 8.0 / 9.0));
        let e: [&str; 0] = [];
        assert!(close(sequence_ratio(&e, &e), 1.0));
        assert!(close(sequence_ratio(&["x"], &e), 0.0));
        // SequenceMatcher(None, "private", "pirate").ratio() == 0.769…
        let a: Vec<char> = "private".chars().collect();
        let b: Vec<char> = "pirate".chars().collect();
        assert!(close(sequence_ratio(&a, &b), 10.0 / 13.0));
    }

    #[test]
    fn autojunk_applies_to_long_sequences() {
        // Values checked against CPython's difflib.
        let a = vec!["x"; 300];
        assert!(close(sequence_ratio(&a, &a), 1.0));
        let mut p = vec!["y"];
        p.extend(vec!["x"; 300]);
        let mut q = vec!["x"; 300];
        q.push("y");
        assert!(close(sequence_ratio(&p, &q), 0.0033222591362126247));
    }

    #[test]
    fn splitlines_like_python() {
        assert_eq!(py_splitlines("a\nb\r\nc\rd"), vec!["a", "b", "c", "d"]);
        assert_eq!(py_splitlines("a\n"), vec!["a"]);
        assert_eq!(py_splitlines("a\n\n"), vec!["a", ""]);
        assert_eq!(py_splitlines(""), Vec::<&str>::new());
        assert_eq!(py_splitlines("x\u{2028}y\u{0c}"), vec!["x", "y"]);
    }
}
