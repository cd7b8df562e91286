//! CSV flow traces (`kind = "trace"`): one flow per line, `src,dst,size_bytes,start_s[,deadline_s]`
//! under a header naming the columns, in start order. Parsed by hand (the format is numbers only:
//! no quoting) so that every error names the file, line and column, and read one line at a time
//! ([`TraceRows`]): the scenario check reads the whole file so, and the run reads it again as it
//! reaches each flow, so that neither holds more than a line of it (issue 41: a study of 22
//! million flows held 10 GiB of them before its run began).
//!
//! A trace `path` comes from a scenario, which may come from anyone, so reading one is guarded
//! (docs/scenario.md, "Trace paths"): a relative path must stay inside the directory it is relative
//! to, the file must be a regular file (a FIFO would block for ever, `/dev/zero` never ends) no
//! larger than `run.max_trace_bytes`, and no message quotes the file's content, only where in it
//! the problem is and what was expected there.

use std::fs::{File, Metadata};
use std::io::{BufRead, BufReader, Read};
use std::path::{Component, Path, PathBuf};

use incast_proto::time::{Duration, Instant};

use super::check::{check_flow, Hosts};
use super::spec::{ExplicitFlow, TraceFile};
use super::units;

/// The columns a trace may have; the first four are required.
const COLUMNS: [&str; 5] = ["src", "dst", "size_bytes", "start_s", "deadline_s"];
const REQUIRED: usize = 4;

/// Checks the whole trace a scenario names `written` (relative paths resolve against `base_dir`,
/// or the working directory when `None`) in one pass that holds one line at a time, calling
/// `each(j, flow)` on its `j`-th flow (an error from it ends the check). What it returns is what
/// the run needs to read the file again as it goes ([`TraceRows`]).
pub(crate) fn check(
    written: &str,
    base_dir: Option<&Path>,
    max_bytes: u64,
    hosts: &Hosts,
    mut each: impl FnMut(u64, &ExplicitFlow) -> Result<(), String>,
) -> Result<TraceFile, String> {
    let resolved = resolve("trace", written, base_dir)?;
    let mut trace = TraceFile {
        written: written.to_owned(),
        resolved,
        max_bytes,
        hosts: hosts.count,
        topology: hosts.topology,
        flows: 0,
        long_lived: 0,
    };
    let mut rows = TraceRows::open(&trace)?;
    while let Some(flow) = rows.next_flow()? {
        each(trace.flows, &flow)?;
        trace.flows += 1;
        trace.long_lived += u64::from(flow.size_bytes.is_none());
    }
    if trace.flows == 0 {
        return Err(format!("trace {written:?} has a header but no flows"));
    }
    Ok(trace)
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
    let file = open_regular_file(what, written, resolved, max_bytes)?;
    let mut bytes = Vec::new();
    // A file that grows while being read is cut off one byte past the limit.
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| cannot_read(what, written, resolved, &e))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(what, written, &format!("more than {max_bytes} bytes"), max_bytes));
    }
    Ok(bytes)
}

fn cannot_read(what: &str, written: &str, resolved: &Path, e: &std::io::Error) -> String {
    format!("cannot read {what} file {written:?} (resolved to {}): {e}", resolved.display())
}

/// The regular file at `resolved`, opened for reading, refused unopened if it is anything else or
/// larger than `max_bytes`. The caller reads at most `max_bytes + 1` bytes of it.
fn open_regular_file(what: &str, written: &str, resolved: &Path, max_bytes: u64) -> Result<File, String> {
    let cannot_read = |e: std::io::Error| cannot_read(what, written, resolved, &e);
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
    // Whatever was opened (the path may have been replaced since) passes the same checks.
    checked(&file.metadata().map_err(cannot_read)?)?;
    Ok(file)
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

/// Longest line a trace may have. A row of five numbers takes well under 100 bytes; the bound
/// keeps a file without line breaks from being held whole.
const MAX_LINE_BYTES: usize = 1 << 16;

/// The flows of a CSV trace, read one line at a time and checked as they are read (the hosts
/// exist, each value is in range, the rows come in start order), so that the run can start each
/// flow as its time comes while holding one line of the file, not the file. The load-time check
/// reads the whole file through it, and so does the run again, since the file may have changed
/// in between. Errors read `flows.csv line 3, column 2 (dst): ...` and never quote the file.
pub struct TraceRows {
    /// The path as the scenario wrote it, for messages.
    shown: String,
    reader: Box<dyn BufRead + Send>,
    hosts: Hosts,
    /// `order[i]`: which of `COLUMNS` the i-th field holds.
    order: Vec<usize>,
    /// The line read last, counting from 1.
    line: usize,
    /// Bytes read so far: where UTF-8 errors are, and what the size limit holds to.
    offset: u64,
    max_bytes: u64,
    /// The previous flow's start and line: a row may not start before it.
    previous: Option<(Instant, usize)>,
    /// The line being read.
    buf: Vec<u8>,
}

impl TraceRows {
    /// Opens the trace `trace` describes, by the rules of trace paths, and reads its header.
    pub fn open(trace: &TraceFile) -> Result<TraceRows, String> {
        let file = open_regular_file("trace", &trace.written, &trace.resolved, trace.max_bytes)?;
        let hosts = Hosts { count: trace.hosts, topology: trace.topology };
        TraceRows::new(&trace.written, Box::new(BufReader::new(file)), hosts, trace.max_bytes)
    }

    /// Rows from `reader`, whose first line that is neither blank nor a comment is the header.
    fn new(shown: &str, reader: Box<dyn BufRead + Send>, hosts: Hosts, max_bytes: u64) -> Result<TraceRows, String> {
        let mut rows = TraceRows {
            shown: shown.to_owned(),
            reader,
            hosts,
            order: Vec::new(),
            line: 0,
            offset: 0,
            max_bytes,
            previous: None,
            buf: Vec::new(),
        };
        let header = rows.next_line()?.ok_or_else(|| {
            format!(
                "trace {shown:?} is empty: expected a header line {}",
                COLUMNS[..REQUIRED].join(",")
            )
        })?;
        rows.order = header_order(shown, rows.line, rows.text(header)?)?;
        Ok(rows)
    }

    /// The next flow, checked, or `None` at the end of the file.
    pub fn next_flow(&mut self) -> Result<Option<ExplicitFlow>, String> {
        let Some(range) = self.next_line()? else {
            return Ok(None);
        };
        let flow = self.row(self.text(range)?)?;
        if let Some((_, line)) = self.previous.filter(|&(before, _)| flow.start < before) {
            let c = self.column(3);
            let shown = &self.shown;
            return Err(format!(
                "{shown} line {}, column {c} (start_s): starts before the flow of line {line}: a \
                 trace must be sorted by start time, as the run reads it while it goes; sort it with the header \
                 kept first, for example (head -n 1 {shown}; tail -n +2 {shown} | sort -s -t, -k{c},{c}g) > sorted.csv",
                self.line,
            ));
        }
        self.previous = Some((flow.start, self.line));
        Ok(Some(flow))
    }

    /// The bytes of the next line that is neither blank nor a comment, trimmed, as a range of
    /// `buf` that is UTF-8; `None` at the end of the file.
    fn next_line(&mut self) -> Result<Option<(usize, usize)>, String> {
        const BOM: &[u8] = b"\xEF\xBB\xBF";
        loop {
            self.buf.clear();
            let start = self.offset;
            let limit = MAX_LINE_BYTES as u64 + 1;
            let n = (&mut self.reader)
                .take(limit)
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| format!("cannot read trace file {:?}: {e}", self.shown))?;
            if n == 0 {
                return Ok(None);
            }
            self.offset += n as u64;
            self.line += 1;
            if self.offset > self.max_bytes {
                // The file grew past the limit since its size was checked.
                let size = format!("more than {} bytes", self.max_bytes);
                return Err(too_large("trace", &self.shown, &size, self.max_bytes));
            }
            if n > MAX_LINE_BYTES && !self.buf.ends_with(b"\n") {
                return Err(format!(
                    "{} line {}: longer than {MAX_LINE_BYTES} bytes, which no trace row is",
                    self.shown, self.line
                ));
            }
            // Editors on Windows start a file with a byte-order mark.
            let skip = if start == 0 && self.buf.starts_with(BOM) { BOM.len() } else { 0 };
            let text = std::str::from_utf8(&self.buf[skip..]).map_err(|e| {
                let at = skip + e.valid_up_to();
                format!(
                    "trace {:?} is not UTF-8 text: invalid byte 0x{:02X} at offset {}",
                    self.shown,
                    self.buf[at],
                    start + at as u64
                )
            })?;
            let trimmed = text.trim();
            if !trimmed.is_empty() && !trimmed.starts_with('#') {
                let from = skip + (trimmed.as_ptr() as usize - text.as_ptr() as usize);
                return Ok(Some((from, from + trimmed.len())));
            }
        }
    }

    /// The text of `range` of the line, which `next_line` found to be UTF-8.
    fn text(&self, (from, to): (usize, usize)) -> Result<&str, String> {
        std::str::from_utf8(&self.buf[from..to]).map_err(|_| format!("trace {:?} is not UTF-8 text", self.shown))
    }

    /// The field number (from 1) of column `c` of `COLUMNS`; 0 if the header lacks it.
    fn column(&self, c: usize) -> usize {
        self.order.iter().position(|&o| o == c).map_or(0, |i| i + 1)
    }

    /// The flow of `row`, the fields of the current line.
    fn row(&self, row: &str) -> Result<ExplicitFlow, String> {
        let (shown, line, order) = (&self.shown, self.line, &self.order);
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
        let at = |c: usize| format!("{shown} line {line}, column {} ({})", self.column(c), COLUMNS[c]);
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
        check_flow(&flow, &self.hosts).map_err(|(field, m)| {
            let c = match field {
                "src" => 0,
                "dst" => 1,
                "size" => 2,
                _ => 4,
            };
            format!("{}: {m}", at(c))
        })?;
        Ok(flow)
    }
}

/// Which of `COLUMNS` each field of the header line `header` (line `line`) names.
fn header_order(shown: &str, line: usize, header: &str) -> Result<Vec<usize>, String> {
    let mut order = Vec::new();
    for (i, name) in header.split(',').map(str::trim).enumerate() {
        let at = format!("{shown} line {line}, column {}", i + 1);
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
            "{shown} line {line}: the header lacks column {:?} (required: {})",
            COLUMNS[missing],
            COLUMNS[..REQUIRED].join(", ")
        ));
    }
    Ok(order)
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

    /// Every flow of trace text `text`, as the rows a run reads.
    fn parse(shown: &str, text: &str, hosts: &Hosts) -> Result<Vec<ExplicitFlow>, String> {
        let hosts = Hosts { count: hosts.count, topology: hosts.topology };
        let mut rows = TraceRows::new(shown, Box::new(std::io::Cursor::new(text.as_bytes().to_vec())), hosts, u64::MAX)?;
        let flows: Vec<ExplicitFlow> = std::iter::from_fn(|| rows.next_flow().transpose()).collect::<Result<_, _>>()?;
        if flows.is_empty() {
            return Err(format!("trace {shown:?} has a header but no flows"));
        }
        Ok(flows)
    }

    /// Every flow of the trace file `written`, checked as a scenario's is.
    fn read(written: &str, base_dir: Option<&Path>, max_bytes: u64, hosts: &Hosts) -> Result<Vec<ExplicitFlow>, String> {
        let mut flows = Vec::new();
        check(written, base_dir, max_bytes, hosts, |_, f| {
            flows.push(*f);
            Ok(())
        })?;
        Ok(flows)
    }

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

    /// The run reads a trace as it goes, so the rows must come in start order; equal starts are
    /// fine. The message names the line, the one it starts before and the column to sort by.
    #[test]
    fn rows_out_of_start_order_are_an_error_that_says_how_to_sort() {
        let text = "size_bytes,start_s,src,dst\n100,0.001,1,0\n100,0.001,2,0\n# c\n100,0.0005,3,0\n";
        let e = parse("t.csv", text, &HOSTS).unwrap_err();
        assert!(
            e.starts_with("t.csv line 5, column 2 (start_s): starts before the flow of line 3: a trace must be sorted by start time"),
            "{e}"
        );
        assert!(e.ends_with("(head -n 1 t.csv; tail -n +2 t.csv | sort -s -t, -k2,2g) > sorted.csv"), "{e}");
        let sorted = "size_bytes,start_s,src,dst\n100,0.0005,3,0\n100,0.001,1,0\n100,1e-3,2,0\n";
        assert_eq!(parse("t.csv", sorted, &HOSTS).unwrap().len(), 3);
    }

    #[test]
    fn a_line_without_end_is_refused_not_held() {
        let text = format!("src,dst,size_bytes,start_s\n1,0,1,{}", "0".repeat(MAX_LINE_BYTES + 10));
        let e = parse("t.csv", &text, &HOSTS).unwrap_err();
        assert_eq!(e, format!("t.csv line 2: longer than {MAX_LINE_BYTES} bytes, which no trace row is"));
        // A long comment within the bound is skipped as any comment.
        let text = format!("# {}\nsrc,dst,size_bytes,start_s\n1,0,1,0\n", "x".repeat(MAX_LINE_BYTES - 3));
        assert_eq!(parse("t.csv", &text, &HOSTS).unwrap().len(), 1);
    }

    /// What the check found is what the run reads again: the rows are checked a second time, so
    /// a file changed in between cannot hand the engine a host that does not exist.
    #[test]
    fn the_run_checks_the_rows_again() {
        let dir = scratch("reread");
        std::fs::write(dir.join("t.csv"), "src,dst,size_bytes,start_s\n1,0,1500,0\n2,3,,0.5\n").unwrap();
        let trace = check("t.csv", Some(&dir), LIMIT, &HOSTS, |_, _| Ok(())).unwrap();
        assert_eq!((trace.flows, trace.long_lived), (2, 1));
        let mut rows = TraceRows::open(&trace).unwrap();
        assert_eq!(rows.next_flow().unwrap().map(|f| f.src), Some(1));
        assert_eq!(rows.next_flow().unwrap().map(|f| f.size_bytes), Some(None));
        assert_eq!(rows.next_flow().unwrap(), None);
        std::fs::write(dir.join("t.csv"), "src,dst,size_bytes,start_s\n1,9,1500,0\n").unwrap();
        let e = TraceRows::open(&trace).and_then(|mut r| r.next_flow()).unwrap_err();
        assert!(e.starts_with("t.csv line 2, column 2 (dst): host 9 does not exist"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
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
