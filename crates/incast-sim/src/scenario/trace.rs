//! CSV flow traces (`kind = "trace"`): one flow per line, `src,dst,size_bytes,start_s[,deadline_s]`
//! under a header naming the columns. Parsed by hand (the format is numbers only: no quoting) so
//! that every error names the file, line and column.

use std::path::Path;

use incast_proto::time::{Duration, Instant};

use super::spec::ExplicitFlow;
use super::traffic::check_flow;
use super::units;
use super::validate::Hosts;

/// The columns a trace may have; the first four are required.
const COLUMNS: [&str; 5] = ["src", "dst", "size_bytes", "start_s", "deadline_s"];
const REQUIRED: usize = 4;

/// Reads the trace at `resolved` (`shown` is the path as the scenario wrote it, for messages).
pub(crate) fn read(
    shown: &str,
    resolved: &Path,
    hosts: &Hosts,
) -> Result<Vec<ExplicitFlow>, String> {
    let text = std::fs::read_to_string(resolved).map_err(|e| {
        format!(
            "cannot read trace file {shown:?} (resolved to {}): {e}",
            resolved.display()
        )
    })?;
    parse(shown, &text, hosts)
}

/// Parses trace text; errors read `flows.csv line 3, column 2 (dst): ...`.
pub(crate) fn parse(shown: &str, text: &str, hosts: &Hosts) -> Result<Vec<ExplicitFlow>, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let (header_line, header) = lines.next().ok_or_else(|| {
        format!(
            "trace {shown:?} is empty: expected a header line {}",
            COLUMNS[..REQUIRED].join(",")
        )
    })?;
    // order[i] = which of COLUMNS the i-th field holds.
    let mut order = Vec::new();
    for (i, name) in header.split(',').map(str::trim).enumerate() {
        let at = format!("{shown} line {header_line}, column {}", i + 1);
        let known = COLUMNS
            .iter()
            .position(|c| c.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                format!(
                    "{at}: unknown column {name:?}: expected {}",
                    COLUMNS.join(", ")
                )
            })?;
        if order.contains(&known) {
            return Err(format!("{at}: column {name:?} appears twice"));
        }
        order.push(known);
    }
    if let Some(missing) = (0..REQUIRED).find(|c| !order.contains(c)) {
        return Err(format!(
            "{shown} line {header_line}: the header lacks column {:?} (required: {})",
            COLUMNS[missing],
            COLUMNS[..REQUIRED].join(", ")
        ));
    }
    let mut flows = Vec::new();
    for (line, row) in lines {
        let mut fields = [""; 5];
        let mut n = 0;
        for field in row.split(',') {
            if n < order.len() {
                fields[order[n]] = field.trim();
            }
            n += 1;
        }
        if n != order.len() {
            return Err(format!(
                "{shown} line {line}: expected {} fields, found {n}",
                order.len()
            ));
        }
        let column = |c: usize| order.iter().position(|&o| o == c).map_or(0, |i| i + 1);
        let at = |c: usize| format!("{shown} line {line}, column {} ({})", column(c), COLUMNS[c]);
        let host = |c: usize| {
            fields[c]
                .parse::<u32>()
                .map_err(|_| format!("{}: invalid host index {:?}", at(c), fields[c]))
        };
        let optional =
            |c: usize, parse: fn(&str) -> Result<u64, String>| -> Result<Option<u64>, String> {
                match fields[c] {
                    "" => Ok(None),
                    s => parse(s).map(Some).map_err(|m| format!("{}: {m}", at(c))),
                }
            };
        let start = match fields[3] {
            "" => return Err(format!("{}: a start time is required", at(3))),
            s => units::parse_seconds(s).map_err(|m| format!("{}: {m}", at(3)))?,
        };
        let flow = ExplicitFlow {
            src: host(0)?,
            dst: host(1)?,
            size_bytes: optional(2, units::parse_count)?,
            start: Instant::from_ps(start),
            deadline: optional(4, units::parse_seconds)?.map(Duration::from_ps),
        };
        check_flow(&flow, hosts).map_err(|(field, m)| {
            let c = match field {
                "src" => 0,
                "dst" => 1,
                "size" => 2,
                _ => 4,
            };
            format!("{}: {m}", at(c))
        })?;
        flows.push(flow);
    }
    if flows.is_empty() {
        return Err(format!("trace {shown:?} has a header but no flows"));
    }
    Ok(flows)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTS: Hosts = Hosts {
        count: 4,
        topology: "star",
    };

    #[test]
    fn reads_rows_with_optional_columns() {
        let text =
            "src,dst,size_bytes,start_s,deadline_s\n1,0,20000,0,0.01\n\n# comment\n2,0,,0.5,\n";
        let flows = parse("t.csv", text, &HOSTS).unwrap();
        assert_eq!(flows.len(), 2);
        assert_eq!(flows[0].size_bytes, Some(20_000));
        assert_eq!(flows[0].deadline, Some(Duration::from_ms(10)));
        assert_eq!(flows[1].size_bytes, None);
        assert_eq!(flows[1].start, Instant::from_ps(500_000_000_000));
        assert_eq!(flows[1].deadline, None);
    }

    #[test]
    fn columns_may_come_in_any_order() {
        let text = "start_s, size_bytes, dst, src\r\n0.001, 1500, 3, 2\r\n";
        let flows = parse("t.csv", text, &HOSTS).unwrap();
        assert_eq!((flows[0].src, flows[0].dst), (2, 3));
        assert_eq!(flows[0].start, Instant::from_ps(1_000_000_000));
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let e = parse(
            "t.csv",
            "src,dst,size_bytes,start_s\n1,0,100,0\n1,x,100,0\n",
            &HOSTS,
        )
        .unwrap_err();
        assert_eq!(e, "t.csv line 3, column 2 (dst): invalid host index \"x\"");
        let e = parse("t.csv", "src,dst,size_bytes,start_s\n1,9,100,0\n", &HOSTS).unwrap_err();
        assert!(
            e.starts_with("t.csv line 2, column 2 (dst): host 9 does not exist"),
            "{e}"
        );
        let e = parse("t.csv", "src,dst,size_bytes,start_s\n1,1,100,0\n", &HOSTS).unwrap_err();
        assert!(e.contains("column 2 (dst): is the same host as src"), "{e}");
        let e = parse("t.csv", "src,dst,size_bytes,start_s\n1,0,1.5,0\n", &HOSTS).unwrap_err();
        assert!(
            e.contains("column 3 (size_bytes)") && e.contains("whole number"),
            "{e}"
        );
        let e = parse("t.csv", "src,dst,size_bytes,start_s\n1,0,100,-1\n", &HOSTS).unwrap_err();
        assert!(
            e.contains("column 4 (start_s)") && e.contains("negative"),
            "{e}"
        );
        let e = parse(
            "t.csv",
            "src,dst,size_bytes,start_s,deadline_s\n1,0,100,0,0\n",
            &HOSTS,
        )
        .unwrap_err();
        assert!(
            e.contains("column 5 (deadline_s)") && e.contains("positive"),
            "{e}"
        );
        let e = parse("t.csv", "src,dst,size_bytes,start_s\n1,0,100\n", &HOSTS).unwrap_err();
        assert_eq!(e, "t.csv line 2: expected 4 fields, found 3");
    }

    #[test]
    fn bad_headers_are_rejected() {
        let e = parse("t.csv", "src,dst,bytes,start_s\n", &HOSTS).unwrap_err();
        assert!(
            e.contains("line 1, column 3: unknown column \"bytes\""),
            "{e}"
        );
        let e = parse("t.csv", "src,dst,start_s\n", &HOSTS).unwrap_err();
        assert!(e.contains("lacks column \"size_bytes\""), "{e}");
        let e = parse("t.csv", "src,src,size_bytes,start_s\n", &HOSTS).unwrap_err();
        assert!(e.contains("appears twice"), "{e}");
        assert!(parse("t.csv", "", &HOSTS).unwrap_err().contains("is empty"));
        let e = parse("t.csv", "src,dst,size_bytes,start_s\n", &HOSTS).unwrap_err();
        assert!(e.contains("no flows"), "{e}");
    }

    #[test]
    fn missing_file_names_the_path() {
        let e = read("nope.csv", Path::new("/nonexistent/nope.csv"), &HOSTS).unwrap_err();
        assert!(
            e.starts_with(
                "cannot read trace file \"nope.csv\" (resolved to /nonexistent/nope.csv)"
            ),
            "{e}"
        );
    }

    proptest::proptest! {
        #[test]
        fn never_panics(text in "[0-9a-z_,.\\-\\n #]{0,200}") {
            let _ = parse("t.csv", &format!("src,dst,size_bytes,start_s,deadline_s\n{text}"), &HOSTS);
            let _ = parse("t.csv", &text, &HOSTS);
        }
    }
}
