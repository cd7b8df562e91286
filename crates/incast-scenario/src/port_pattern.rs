//! Port names and the patterns that choose them (`[output] queue_sample_ports`): a port is named
//! `{node}->{peer}` (by the engine: `Topology::port_name`), and a pattern is a name in which `*`
//! stands for any run of characters and `?` for one, so that `tor*->fabric` is every ToR's uplink
//! and `core*` every core port. Validation checks the patterns; the engine chooses the ports a
//! pattern names with [`matches()`].

/// Whether `name` matches `pattern`.
pub fn matches(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // Iterative wildcard matching: on a mismatch, let the last `*` absorb one more character.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

/// The first of `patterns` that matches none of the port `names`, if one does not: scenario
/// validation refuses it, so that every pattern of a run chooses at least one port.
pub(crate) fn first_unmatched(patterns: &[String], names: &[String]) -> Option<usize> {
    patterns.iter().position(|pattern| !names.iter().any(|name| matches(pattern, name)))
}

/// Whether `c` may appear in a node's name: letters, digits and `_ . : -`. The built topologies
/// name their nodes with letters, digits and `-` (`tor3`, `h0`); graph files may use all of
/// these (`graph::check_name`). A port's name is two node names joined by `->`.
pub(crate) fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-')
}

/// Why `pattern` cannot name a port, if it cannot: port names are made of the characters of node
/// names ([`is_name_char`]) and `>`.
pub(crate) fn check(pattern: &str) -> Result<(), String> {
    if pattern.is_empty() {
        return Err("is empty; a port is named `{node}->{peer}`, e.g. \"switch->h0\" or \"tor*->fabric\"".into());
    }
    match pattern.chars().find(|&c| !(is_name_char(c) || matches!(c, '>' | '*' | '?'))) {
        Some(c) => Err(format!(
            "{pattern:?} has {c:?}, which no port name has: ports are named `{{node}}->{{peer}}` (\"switch->h0\", \
             \"tor3->fabric\"), node names having letters, digits and _ . : -, with `*` for any run of characters \
             and `?` for one"
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_and_question_marks_match_as_in_a_shell() {
        assert!(matches("switch->h0", "switch->h0"));
        assert!(!matches("switch->h0", "switch->h01"));
        assert!(matches("tor*->fabric", "tor12->fabric"));
        assert!(!matches("tor*->fabric", "fabric->tor12"));
        assert!(matches("core*", "core3->agg7"));
        assert!(matches("*->h1?", "edge4->h17"));
        assert!(!matches("*->h1?", "edge4->h1"));
        assert!(matches("*", "h0->switch"));
        assert!(matches("a*b*c", "axxbyybzc"));
        assert!(!matches("a*b*c", "axxbyy"));
    }

    #[test]
    fn the_first_pattern_that_names_no_port_is_found() {
        let names = ["switch->h0".to_owned(), "h0->switch".to_owned()];
        let patterns = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(first_unmatched(&patterns(&["*->h0", "h?->*"]), &names), None);
        assert_eq!(first_unmatched(&patterns(&["*->h0", "core*", "tor*"]), &names), Some(1));
        assert_eq!(first_unmatched(&[], &names), None);
    }

    #[test]
    fn a_pattern_with_characters_no_name_has_is_refused() {
        assert!(check("tor*->fabric").is_ok());
        assert!(check("").unwrap_err().contains("is empty"));
        assert!(check("tor 1").unwrap_err().contains("' '"));
        assert!(check("tor[1]").unwrap_err().contains("'['"));
        assert!(check("h/0").unwrap_err().contains("'/'"));
    }

    #[test]
    fn every_character_a_graph_node_name_may_have_is_accepted() {
        // Graph files name nodes with letters, digits and _ . : - (docs/scenario.md).
        for pattern in ["rack_1.tor:a->*", "*->h_0", "spine.0->leaf:1", "?_*"] {
            assert_eq!(check(pattern), Ok(()), "{pattern}");
        }
        assert!(matches("rack_1.tor:a->*", "rack_1.tor:a->spine-2"));
        for c in "_.:-".chars() {
            assert!(is_name_char(c), "{c}");
        }
        assert!(!is_name_char('>') && !is_name_char(' '));
    }
}
