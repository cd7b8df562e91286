//! CSV flow traces (`kind = "trace"`): one flow per line, `src,dst,size_bytes,start_s[,deadline_s]`
//! under a header naming the columns. Parsed by hand (the format is numbers only: no quoting) so
//! that every error names the file, line and column.
//!
//! A trace `path` comes from a scenario, which may come from anyone, so reading one is guarded
//! (docs/scenario.md, "Trace paths"): a relative path must stay inside the directory it is relative
//! to, the file must be a regular file (a FIFO would block for ever, `/dev/zero` never ends) no
//! larger than `run.max_trace_bytes`, and no message quotes the file's content, only where in it
//! the problem is and what was expected there.

use std::fs::Metadata;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use incast_proto::time::{Duration, Instant};

use super::check::{check_flow, Hosts};
use super::spec::ExplicitFlow;
use super::text::utf8_text;
use super::units;

/// The columns a trace may have; the first four are required.
const COLUMNS: [&str; 5] = ["src", "dst", "size_bytes", "start_s", "deadline_s"];
const REQUIRED: usize = 4;

/// Reads the trace a scenario names `written` (relative paths resolve against `base_dir`, or the
/// working directory when `None`), at most `max_bytes` of it.
pub(crate) fn read(
    written: &str,
    base_dir: Option<&Path>,
    max_bytes: u64,
    hosts: &Hosts,
) -> Result<Vec<ExplicitFlow>, String> {
    let bytes = read_file(written, base_dir, max_bytes)?;
    let text = utf8_text(&bytes).map_err(|m| format!("trace {written:?} is {m}"))?;
    parse(written, text, hosts)
}

/// The bytes of the trace file a scenario names `written`, read by the rules of every trace
/// (docs/scenario.md, "Trace paths"): the CSV traces here, and the Parquet traces that the Python
/// layer parses (`_core.read_trace`), so that both kinds are guarded by this one piece of code.
pub fn read_file(written: &str, base_dir: Option<&Path>, max_bytes: u64) -> Result<Vec<u8>, String> {
    read_named_file("trace", written, base_dir, max_bytes)
}

/// The bytes of the file a scenario names `written`, by the rules of trace paths; `what` names
/// the kind of file in messages ("trace", "graph").
pub(crate) fn read_named_file(what: &str, written: &str, base_dir: Option<&Path>, max_bytes: u64) -> Result<Vec<u8>, String> {
    let resolved = resolve(what, written, base_dir)?;
    read_regular_file(what, written, &resolved, max_bytes)
}

/// Where the trace path `written` points. An absolute path is taken as written: the user named
/// that file. A relative one is joined to `base_dir` (the working directory when `None`) and must
/// still lie inside it once `..` and symbolic links are resolved, so that a scenario received from
/// elsewhere cannot read files beside or above its own directory.
fn resolve(what: &str, written: &str, base_dir: Option<&Path>) -> Result<PathBuf, String> {
    let path = Path::new(written);
    if path.is_absolute() {
        return Ok(path.to_path_buf());
    }
    let base = match base_dir {
        Some(dir) => dir.canonicalize(),
        None => std::env::current_dir().and_then(|dir| dir.canonicalize()),
    }
    .map_err(|e| {
        let dir = base_dir.map_or_else(
            || "the working directory".to_owned(),
            |d| d.display().to_string(),
        );
        format!("cannot resolve {what} path {written:?}: its base directory {dir} is unusable: {e}")
    })?;
    // Checked on the text first, so that whether a file outside exists is not given away either.
    let mut depth = 0_usize;
    for part in path.components() {
        match part {
            Component::ParentDir if depth == 0 => return Err(outside(what, written, &base, None)),
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            _ => {}
        }
    }
    let joined = base.join(path);
    let resolved = joined.canonicalize().map_err(|e| {
        format!(
            "cannot read {what} file {written:?} (resolved to {}): {e}",
            joined.display()
        )
    })?;
    if !resolved.starts_with(&base) {
        return Err(outside(what, written, &base, Some(&resolved)));
    }
    Ok(resolved)
}

fn outside(what: &str, written: &str, base: &Path, resolved: Option<&Path>) -> String {
    let target = resolved.map_or_else(String::new, |r| format!(" resolves to {} and", r.display()));
    format!(
        "{what} path {written:?}{target} leads outside {}: a relative {what} path must stay inside \
         the scenario file's directory (the working directory for a dict); write an absolute path \
         to read a file elsewhere",
        base.display()
    )
}

/// The bytes of the regular file at `resolved`, refused unread if it is anything else or larger
/// than `max_bytes`.
fn read_regular_file(what: &str, written: &str, resolved: &Path, max_bytes: u64) -> Result<Vec<u8>, String> {
    let cannot_read = |e: std::io::Error| {
        format!(
            "cannot read {what} file {written:?} (resolved to {}): {e}",
            resolved.display()
        )
    };
    // Checked before opening: opening a FIFO for reading blocks until a writer comes.
    let checked = |meta: &Metadata| -> Result<(), String> {
        if !meta.is_file() {
            return Err(format!(
                "{what} file {written:?} (resolved to {}) is {}, not a regular file",
                resolved.display(),
                kind_of(meta)
            ));
        }
        if meta.len() > max_bytes {
            return Err(too_large(
                what,
                written,
                &format!("{} bytes", meta.len()),
                max_bytes,
            ));
        }
        Ok(())
    };
    checked(&std::fs::metadata(resolved).map_err(cannot_read)?)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // Non-blocking too: the path may have become a FIFO since, and opening one waits for a writer.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(resolved).map_err(cannot_read)?;
    // Whatever was opened (the path may have been replaced since) passes the same checks, and a
    // file that grows while being read is cut off one byte past the limit.
    checked(&file.metadata().map_err(cannot_read)?)?;
    let mut bytes = Vec::new();
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(cannot_read)?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(
            what,
            written,
            &format!("more than {max_bytes} bytes"),
            max_bytes,
        ));
    }
    Ok(bytes)
}

fn too_large(what: &str, written: &str, size: &str, max_bytes: u64) -> String {
    format!(
        "{what} file {written:?} holds {size}, above the limit of {max_bytes} bytes \
         (`run.max_trace_bytes`; raise it to read this file)"
    )
}

/// What kind of file `meta` describes, for a message: "a directory", "a FIFO"...
fn kind_of(meta: &Metadata) -> &'static str {
    let kind = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
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
                    "{at}: unknown column name: expected one of {}",
                    COLUMNS.join(", ")
                )
            })?;
        if order.contains(&known) {
            return Err(format!("{at}: column {:?} appears twice", COLUMNS[known]));
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
                .map_err(|_| format!("{}: expected a host index (a whole number from 0)", at(c)))
        };
        let optional =
            |c: usize, parse: fn(&str) -> Result<u64, String>| -> Result<Option<u64>, String> {
                match fields[c] {
                    "" => Ok(None),
                    s => parse(s)
                        .map(Some)
                        .map_err(|m| format!("{}: {}", at(c), unquoted(&m))),
                }
            };
        let start = match fields[3] {
            "" => return Err(format!("{}: a start time is required", at(3))),
            s => units::parse_seconds(s).map_err(|m| format!("{}: {}", at(3), unquoted(&m)))?,
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

/// A number parser's message without the text it quotes: `invalid time "x": must not be
/// negative` becomes `invalid time: must not be negative`. The reasons `units` gives contain no
/// `": "`, so the last one ends the quote whatever the field held.
fn unquoted(message: &str) -> String {
    match (message.split_once('"'), message.rsplit_once(": ")) {
        (Some((what, _)), Some((_, why))) => format!("{}: {why}", what.trim_end()),
        _ => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DEFAULT_MAX_TRACE_BYTES;

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
        assert_eq!(
            e,
            "t.csv line 3, column 2 (dst): expected a host index (a whole number from 0)"
        );
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
        assert!(e.contains("line 1, column 3: unknown column name"), "{e}");
        let e = parse("t.csv", "src,dst,start_s\n", &HOSTS).unwrap_err();
        assert!(e.contains("lacks column \"size_bytes\""), "{e}");
        let e = parse("t.csv", "src,src,size_bytes,start_s\n", &HOSTS).unwrap_err();
        assert!(e.contains("appears twice"), "{e}");
        assert!(parse("t.csv", "", &HOSTS).unwrap_err().contains("is empty"));
        let e = parse("t.csv", "src,dst,size_bytes,start_s\n", &HOSTS).unwrap_err();
        assert!(e.contains("no flows"), "{e}");
    }

    /// A fresh scratch directory for one test.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("incast-trace-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.canonicalize().unwrap()
    }

    const TRACE: &str = "src,dst,size_bytes,start_s\n1,0,1500,0\n";
    const LIMIT: u64 = DEFAULT_MAX_TRACE_BYTES;

    #[test]
    fn missing_file_names_the_path() {
        let e = read("/nonexistent/nope.csv", None, LIMIT, &HOSTS).unwrap_err();
        assert!(
            e.starts_with("cannot read trace file \"/nonexistent/nope.csv\" (resolved to /nonexistent/nope.csv)"),
            "{e}"
        );
        let dir = scratch("missing");
        let e = read("nope.csv", Some(&dir), LIMIT, &HOSTS).unwrap_err();
        assert!(
            e.starts_with("cannot read trace file \"nope.csv\" (resolved to "),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn relative_paths_resolve_inside_the_base_directory() {
        let dir = scratch("relative");
        std::fs::create_dir(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/t.csv"), TRACE).unwrap();
        assert_eq!(
            read("sub/t.csv", Some(&dir), LIMIT, &HOSTS).unwrap().len(),
            1
        );
        // `..` that stays inside is fine.
        assert_eq!(
            read("sub/../sub/t.csv", Some(&dir), LIMIT, &HOSTS)
                .unwrap()
                .len(),
            1
        );
        // Leaving the directory is not, even to a file that exists.
        let e = read("../t.csv", Some(&dir.join("sub")), LIMIT, &HOSTS).unwrap_err();
        assert!(e.contains("leads outside"), "{e}");
        std::fs::write(dir.join("t.csv"), TRACE).unwrap();
        let e = read("../t.csv", Some(&dir.join("sub")), LIMIT, &HOSTS).unwrap_err();
        assert!(
            e.contains("must stay inside the scenario file's directory"),
            "{e}"
        );
        // ... and an absolute path is taken as written.
        let absolute = dir.join("t.csv");
        let flows = read(
            absolute.to_str().unwrap(),
            Some(&dir.join("sub")),
            LIMIT,
            &HOSTS,
        );
        assert_eq!(flows.unwrap().len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn symbolic_links_may_not_lead_out_of_the_base_directory() {
        let dir = scratch("symlink");
        std::fs::create_dir(dir.join("inside")).unwrap();
        std::fs::write(dir.join("outside.csv"), "secret,content\n").unwrap();
        std::fs::write(dir.join("inside/real.csv"), TRACE).unwrap();
        std::os::unix::fs::symlink(dir.join("outside.csv"), dir.join("inside/escape.csv")).unwrap();
        std::os::unix::fs::symlink("real.csv", dir.join("inside/alias.csv")).unwrap();
        let base = dir.join("inside");
        let e = read("escape.csv", Some(&base), LIMIT, &HOSTS).unwrap_err();
        assert!(
            e.contains("resolves to") && e.contains("leads outside"),
            "{e}"
        );
        assert!(!e.contains("secret"), "{e}");
        assert_eq!(
            read("alias.csv", Some(&base), LIMIT, &HOSTS).unwrap().len(),
            1
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn only_regular_files_are_read() {
        let dir = scratch("kinds");
        let e = read(dir.to_str().unwrap(), None, LIMIT, &HOSTS).unwrap_err();
        assert!(e.ends_with("is a directory, not a regular file"), "{e}");
        // Would read for ever.
        let e = read("/dev/zero", None, LIMIT, &HOSTS).unwrap_err();
        assert!(
            e.ends_with("is a character device, not a regular file"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = scratch("fifo");
        let fifo = dir.join("t.csv");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: no mkfifo command");
            return;
        }
        // Opening the FIFO would block for ever with no writer: the stat refuses it first.
        let e = read("t.csv", Some(&dir), LIMIT, &HOSTS).unwrap_err();
        assert!(
            e.ends_with("is a FIFO (named pipe), not a regular file"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn files_above_the_size_limit_are_refused() {
        let dir = scratch("size");
        std::fs::write(dir.join("t.csv"), TRACE).unwrap();
        let size = TRACE.len() as u64;
        assert!(read("t.csv", Some(&dir), size, &HOSTS).is_ok());
        let e = read("t.csv", Some(&dir), size - 1, &HOSTS).unwrap_err();
        assert!(
            e.contains(&format!(
                "holds {size} bytes, above the limit of {} bytes",
                size - 1
            )),
            "{e}"
        );
        assert!(e.contains("run.max_trace_bytes"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn messages_never_quote_the_file() {
        let dir = scratch("quote");
        let secret = "hunter2";
        let cases = [
            format!("{secret}\n"),
            format!("src,dst,{secret},start_s\n"),
            format!("src,dst,size_bytes,start_s\n{secret},0,1,0\n"),
            format!("src,dst,size_bytes,start_s\n1,0,{secret},0\n"),
            format!("src,dst,size_bytes,start_s\n1,0,1,{secret}\n"),
            format!("src,dst,size_bytes,start_s\n1,0,1,-{secret}\n"),
            format!("src,dst,size_bytes,start_s,deadline_s\n1,0,1,0,\"{secret}\": x\n"),
        ];
        for text in cases {
            std::fs::write(dir.join("t.csv"), &text).unwrap();
            let e = read("t.csv", Some(&dir), LIMIT, &HOSTS).unwrap_err();
            assert!(!e.contains(secret), "{text:?} gave {e}");
        }
        let mut bytes = TRACE.as_bytes().to_vec();
        bytes.extend_from_slice(b"1,0,\xff\xfe,0\n");
        std::fs::write(dir.join("t.csv"), &bytes).unwrap();
        let e = read("t.csv", Some(&dir), LIMIT, &HOSTS).unwrap_err();
        let at = TRACE.len() + 4;
        assert_eq!(
            e,
            format!("trace \"t.csv\" is not UTF-8 text: invalid byte 0xFF at offset {at}")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_byte_order_mark_is_dropped() {
        let dir = scratch("bom");
        std::fs::write(dir.join("t.csv"), format!("\u{feff}{TRACE}")).unwrap();
        assert_eq!(read("t.csv", Some(&dir), LIMIT, &HOSTS).unwrap().len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    proptest::proptest! {
        #[test]
        fn never_panics(text in "[0-9a-z_,.\\-\\n #]{0,200}") {
            let _ = parse("t.csv", &format!("src,dst,size_bytes,start_s,deadline_s\n{text}"), &HOSTS);
            let _ = parse("t.csv", &text, &HOSTS);
        }
    }
}
