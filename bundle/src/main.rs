//! `bundle`: turns the front end compiled for `wasm32-unknown-unknown` into the web assets klens
//! serves under `/pkg`, in one folder named after their hash:
//!
//! 1. the WASM cut into the shell and a piece per page loaded on demand and per sheet loaded
//!    when opened, with the code two or three of them share in chunks of their own (what more
//!    need stays in the shell: `vendor/wasm_split_cli_support`), and the JavaScript that loads
//!    a piece (`wasm_split_cli_support`, the splitter of Leptos's lazy routes, as a library);
//! 2. the JavaScript bindings of the shell (wasm-bindgen, as a library);
//! 3. every WASM file made smaller by wasm-opt (binaryen, from `PATH` or `WASM_OPT`): the shell
//!    with two size passes, each piece with one;
//! 4. the stylesheet beside them;
//! 5. the folder named after one hash of the whole set (`pkg/<hash>/`), so a browser may keep
//!    every file in it for a year, while the names inside stay the ones the loaders ask for;
//! 6. a brotli and a gzip copy of each file;
//! 7. the budgets: with `--max-first-load`, a refusal of a site where some page's first load
//!    (the shell, its scripts and stylesheet, and the pieces the page's split needs) is over
//!    it with brotli; with `--max-piece`, of one whose piece is.
//!
//! The folder's `bundle.txt` holds the hash: the server reads it, or embeds the folder with
//! it, to name the files in its pages. `sizes.tsv` holds every file's sizes and every first
//! load; they are printed at the end.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use sha2::{Digest, Sha256};

const USAGE: &str =
    "usage: bundle --wasm FILE --css FILE --out DIR [--max-first-load BYTES] [--max-piece BYTES]

  --wasm FILE              the front end as cargo built it for wasm32-unknown-unknown, linked
                           with --emit-relocs
  --css FILE               the stylesheet
  --out DIR                where the site goes: DIR/pkg/<hash> holds the files, DIR/bundle.txt
                           the hash, DIR/sizes.tsv their sizes
  --max-first-load BYTES   refuse the site when a page's first load is larger with brotli
  --max-piece BYTES        refuse the site when a piece of the WASM is larger with brotli

Environment: WASM_OPT names the wasm-opt program (default: wasm-opt on PATH).";

/// How wasm-opt is run on the shell: smallest code, the bulk-memory instructions Rust emits, no
/// names. The size passes run twice: the second finds what the first one's inlining and merging
/// opened up (about 4 KB less with brotli, for some 30 s more on two cores).
const WASM_OPT_ARGS: [&str; 4] = ["-Oz", "-Oz", "--enable-bulk-memory", "--strip-debug"];

/// How wasm-opt is run on the pieces: one size pass. They are many (about two hundred) and
/// small, and a second pass over each cost minutes for a few hundred bytes.
const WASM_OPT_PIECE_ARGS: [&str; 3] = ["-Oz", "--enable-bulk-memory", "--strip-debug"];

/// The name wasm-bindgen gives the shell's files; the WASM becomes `klens.wasm`.
const STEM: &str = "klens";

/// The script that loads a piece, as the shell's WASM imports it (relative to `klens.js`).
const LOADER: &str = "__wasm_split.js";

struct Args {
    wasm: PathBuf,
    css: PathBuf,
    out: PathBuf,
    budgets: Budgets,
}

/// The most bytes with brotli, where there is a budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Budgets {
    first_load: Option<usize>,
    piece: Option<usize>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut wasm, mut css, mut out, mut first_load, mut piece) = (None, None, None, None, None);
    while let Some(arg) = args.next() {
        let slot = match arg.as_str() {
            "--wasm" => &mut wasm,
            "--css" => &mut css,
            "--out" => &mut out,
            "--max-first-load" => &mut first_load,
            "--max-piece" => &mut piece,
            "--help" | "-h" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        };
        *slot = Some(args.next().ok_or_else(|| format!("{arg} needs a value"))?);
    }
    let bytes = |flag: &str, value: Option<String>| match value {
        None => Ok(None),
        Some(text) => text
            .parse()
            .map(Some)
            .map_err(|_| format!("{flag} takes a number of bytes, not `{text}`")),
    };
    Ok(Args {
        wasm: wasm.ok_or("--wasm is required")?.into(),
        css: css.ok_or("--css is required")?.into(),
        out: out.ok_or("--out is required")?.into(),
        budgets: Budgets {
            first_load: bytes("--max-first-load", first_load)?,
            piece: bytes("--max-piece", piece)?,
        },
    })
}

fn main() -> ExitCode {
    let result = parse_args(std::env::args().skip(1)).and_then(|args| run(&args));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("bundle: {message}");
            ExitCode::FAILURE
        }
    }
}

/// What a site weighs: each file's sizes (raw, gzip, brotli), and the first load of
/// each page loaded on demand with brotli (`shell` for the pages in it).
#[derive(Debug, Default, PartialEq, Eq)]
struct Sizes {
    files: Vec<(String, [usize; 3])>,
    loads: Vec<(String, usize)>,
}

impl Sizes {
    fn to_tsv(&self) -> String {
        let mut text = String::new();
        for (file, [raw, gzip, brotli]) in &self.files {
            text.push_str(&format!("file\t{file}\t{raw}\t{gzip}\t{brotli}\n"));
        }
        for (section, brotli) in &self.loads {
            text.push_str(&format!("load\t{section}\t{brotli}\n"));
        }
        text
    }

    fn from_tsv(text: &str) -> Option<Sizes> {
        let mut sizes = Sizes::default();
        for line in text.lines() {
            let fields: Vec<&str> = line.split('\t').collect();
            match fields[..] {
                ["file", file, raw, gzip, brotli] => sizes.files.push((
                    file.to_string(),
                    [raw.parse().ok()?, gzip.parse().ok()?, brotli.parse().ok()?],
                )),
                ["load", section, brotli] => {
                    sizes.loads.push((section.to_string(), brotli.parse().ok()?))
                }
                _ => return None,
            }
        }
        Some(sizes)
    }

    /// Every piece and every first load against the budgets: a refusal names each one over,
    /// and by how much.
    fn within(&self, budgets: Budgets) -> Result<(), String> {
        let mut over = Vec::new();
        if let Some(most) = budgets.piece {
            for (file, [_, _, brotli]) in &self.files {
                if is_piece(file) && *brotli > most {
                    over.push(format!(
                        "the piece {file} is {brotli} bytes with brotli, {} over its budget of \
                         {most} (--max-piece, PIECE_BUDGET in the Makefile)",
                        brotli - most
                    ));
                }
            }
        }
        if let Some(most) = budgets.first_load {
            for (section, brotli) in &self.loads {
                if *brotli > most {
                    over.push(format!(
                        "the first load of the {section} page is {brotli} bytes with brotli, \
                         {} over its budget of {most} (--max-first-load, FIRST_LOAD_BUDGET in \
                         the Makefile)",
                        brotli - most
                    ));
                }
            }
        }
        if over.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{}; dev/wasm-sizes on the module cargo built shows where the code goes",
                over.join("; ")
            ))
        }
    }

    fn print(&self) {
        println!("{:<40} {:>10} {:>10} {:>10}", "file", "raw", "gzip", "brotli");
        for (file, [raw, gzip, brotli]) in &self.files {
            println!("{file:<40} {raw:>10} {gzip:>10} {brotli:>10}");
        }
        println!("{:<40} {:>32}", "first load of the page", "brotli");
        for (section, brotli) in &self.loads {
            println!("{section:<40} {brotli:>32}");
        }
    }
}

/// A piece of the WASM loaded when a page or a sheet is opened (the splitter's `split_*` and
/// `chunk_*` modules), as opposed to the shell every page loads.
fn is_piece(file: &str) -> bool {
    file.ends_with(".wasm") && (file.starts_with("split_") || file.starts_with("chunk_"))
}

/// A page's name from its split's (`topics_page_<hash of the call site>`): `topics`; `None` for
/// a split that is no page (a sheet's, loaded when it is first opened).
fn page_name(split: &str) -> Option<String> {
    let name = split.rsplit_once('_').map_or(split, |(name, hash)| {
        if hash.chars().all(|c| c.is_ascii_digit()) {
            name
        } else {
            split
        }
    });
    name.strip_suffix("_page").map(str::to_string)
}

/// Each page's first load: the shell (every file but the pieces) and, for a page loaded on
/// demand, the pieces its split needs (`needs`: split → the stems of its files, as the
/// splitter answers). A sheet's pieces are no first load: they come when it is opened.
fn first_loads(
    files: &[(String, [usize; 3])], needs: &BTreeMap<String, Vec<String>>,
) -> Vec<(String, usize)> {
    let brotli = |name: &str| files.iter().find(|(file, _)| file == name).map(|(_, s)| s[2]);
    let shell: usize =
        files.iter().filter(|(file, _)| !is_piece(file)).map(|(_, sizes)| sizes[2]).sum();
    let mut loads = vec![("shell".to_string(), shell)];
    for (split, stems) in needs {
        let Some(page) = page_name(split) else { continue };
        let mut pieces: Vec<String> = stems.iter().map(|stem| format!("{stem}.wasm")).collect();
        pieces.sort();
        pieces.dedup();
        let own: usize = pieces.iter().filter_map(|piece| brotli(piece)).sum();
        loads.push((page, shell + own));
    }
    loads
}

fn run(args: &Args) -> Result<(), String> {
    let started = std::time::Instant::now();
    let mut steps = Vec::new();
    let mut step = |name: &'static str| steps.push((name, started.elapsed()));
    std::fs::create_dir_all(&args.out).map_err(|e| io_error(&args.out, e))?;
    // The same inputs give the same site: skip the minutes wasm-opt takes.
    let inputs = inputs_hash(args)?;
    let inputs_file = args.out.join("inputs.txt");
    let name_file = args.out.join("bundle.txt");
    let sizes_file = args.out.join("sizes.tsv");
    let pkg = args.out.join("pkg");
    if std::fs::read_to_string(&inputs_file).is_ok_and(|seen| seen.trim() == inputs) {
        let name = std::fs::read_to_string(&name_file).unwrap_or_default();
        let sizes = std::fs::read_to_string(&sizes_file).ok().and_then(|t| Sizes::from_tsv(&t));
        if let Some(sizes) = sizes.filter(|_| pkg.join(name.trim()).is_dir()) {
            // The budgets are not among the inputs (changing them needs no new site): check
            // the site there is against them.
            sizes.within(args.budgets)?;
            println!("bundle: {} is up to date ({})", args.out.display(), name.trim());
            return Ok(());
        }
    }
    // Built aside and swapped in at the end, so a failed run leaves the last good site.
    let staging = args.out.join("pkg.new");
    remove_dir(&staging)?;
    std::fs::create_dir_all(&staging).map_err(|e| io_error(&staging, e))?;

    let wasm = std::fs::read(&args.wasm).map_err(|e| io_error(&args.wasm, e))?;
    let shell_wasm = args.out.join("shell.split.wasm");
    let main_module = format!("./{STEM}.js");
    let link_name = format!("./{LOADER}");
    let mut options = wasm_split_cli_support::Options::new(&wasm);
    options.output_dir = &staging;
    options.main_out_path = &shell_wasm;
    options.main_module = &main_module;
    options.link_name = &link_name;
    let split = wasm_split_cli_support::transform(options)
        .map_err(|e| format!("splitting {}: {e:#}", args.wasm.display()))?;
    let needs: BTreeMap<String, Vec<String>> = split.prefetch_map.into_iter().collect();
    step("split");

    let mut output = wasm_bindgen_cli_support::Bindgen::new()
        .input_path(&shell_wasm)
        .out_name(STEM)
        .web(true)
        .map_err(|e| format!("wasm-bindgen: {e:#}"))?
        .typescript(false)
        .remove_producers_section(true)
        // The loader reaches the shell's table and memory through these exports, and finds
        // the pieces' functions by their names.
        .keep_lld_exports(true)
        .demangle(false)
        .generate_output()
        .map_err(|e| format!("wasm-bindgen on {}: {e:#}", shell_wasm.display()))?;
    output
        .emit(&staging)
        .map_err(|e| format!("wasm-bindgen writing {}: {e:#}", staging.display()))?;
    let (bound, shell) =
        (staging.join(format!("{STEM}_bg.wasm")), staging.join(format!("{STEM}.wasm")));
    std::fs::rename(&bound, &shell).map_err(|e| io_error(&bound, e))?;
    step("bindings");

    let mut wasm_files: Vec<PathBuf> = files_under(&staging)?
        .into_iter()
        .filter(|file| file.extension().is_some_and(|e| e == "wasm"))
        .map(|file| staging.join(file))
        .collect();
    // The largest first, so the shell's minutes overlap every piece's seconds.
    wasm_files.sort_by_key(|file| {
        std::cmp::Reverse(std::fs::metadata(file).map_or(0, |meta| meta.len()))
    });
    optimize_all(&wasm_files)?;
    step("wasm-opt");
    let css = std::fs::read(&args.css).map_err(|e| io_error(&args.css, e))?;
    let css_path = staging.join(format!("{STEM}.css"));
    std::fs::write(&css_path, css).map_err(|e| io_error(&css_path, e))?;
    for needed in [format!("{STEM}.js"), LOADER.to_string()] {
        if !staging.join(&needed).is_file() {
            return Err(format!("{} lacks {needed}", staging.display()));
        }
    }

    let files = files_under(&staging)?;
    let name = hash_of(&staging, &files)?;
    let mut sizes = Sizes::default();
    for file in &files {
        let (raw, gzip, brotli) = compress_beside(&staging.join(file))?;
        sizes.files.push((file.to_string_lossy().into_owned(), [raw, gzip, brotli]));
    }
    sizes.loads = first_loads(&sizes.files, &needs);
    step("compression");
    // Checked before the new site replaces the last one, which stays as it was; the refused
    // one is left in the staging folder to look at, its figures printed.
    sizes
        .within(args.budgets)
        .inspect_err(|_| sizes.print())
        .map_err(|e| format!("{e} (the refused site is in {})", staging.display()))?;

    remove_dir(&pkg)?;
    std::fs::create_dir_all(&pkg).map_err(|e| io_error(&pkg, e))?;
    let folder = pkg.join(&name);
    std::fs::rename(&staging, &folder).map_err(|e| io_error(&staging, e))?;
    std::fs::write(&name_file, format!("{name}\n")).map_err(|e| io_error(&name_file, e))?;
    std::fs::write(&sizes_file, sizes.to_tsv()).map_err(|e| io_error(&sizes_file, e))?;
    std::fs::write(&inputs_file, format!("{inputs}\n")).map_err(|e| io_error(&inputs_file, e))?;
    let _ = std::fs::remove_file(&shell_wasm);

    println!("bundle: {}", folder.display());
    let mut before = std::time::Duration::ZERO;
    for (name, at) in steps {
        println!("  {name}: {:.1} s", (at - before).as_secs_f64());
        before = at;
    }
    sizes.print();
    Ok(())
}

/// What the site is made from: the compiled front end, the stylesheet, the wasm-opt program
/// and its version, and this program. Not the budget, which changes no file.
fn inputs_hash(args: &Args) -> Result<String, String> {
    let mut hasher = Sha256::new();
    for path in [&args.wasm, &args.css] {
        let bytes = std::fs::read(path).map_err(|e| io_error(path, e))?;
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    // This program itself (a change to how it names or compresses makes a new site)...
    let me = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let bytes = std::fs::read(&me).map_err(|e| io_error(&me, e))?;
    hasher.update(&bytes);
    // ...the wasm-opt it runs, by version...
    let program = wasm_opt_program();
    hasher.update(program.to_string_lossy().as_bytes());
    if let Ok(output) = Command::new(&program).arg("--version").output() {
        hasher.update(&output.stdout);
    }
    hasher.update(WASM_OPT_ARGS.join(" ").as_bytes());
    hasher.update(WASM_OPT_PIECE_ARGS.join(" ").as_bytes());
    Ok(hex(&hasher.finalize()))
}

/// The wasm-opt program: `WASM_OPT`, or `wasm-opt` on `PATH`.
fn wasm_opt_program() -> std::ffi::OsString {
    std::env::var_os("WASM_OPT").unwrap_or_else(|| "wasm-opt".into())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs `wasm-opt -Oz` over `file` in place. Binaryen 116 or newer: older ones emit a module
/// that fails to hydrate.
fn optimize(file: &Path) -> Result<(), String> {
    let program = wasm_opt_program();
    let piece = file.file_name().is_some_and(|name| is_piece(&name.to_string_lossy()));
    let args: &[&str] = if piece { &WASM_OPT_PIECE_ARGS } else { &WASM_OPT_ARGS };
    let status =
        Command::new(&program).args(args).arg(file).arg("-o").arg(file).status().map_err(|e| {
            format!(
                "cannot run {} ({e}); `make tools` installs binaryen's wasm-opt",
                program.to_string_lossy()
            )
        })?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("wasm-opt failed on {} ({status})", file.display()))
    }
}

/// Runs wasm-opt over every file, two at a time (the shell takes most of the time; the
/// pieces go beside it).
fn optimize_all(files: &[PathBuf]) -> Result<(), String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || -> Result<(), String> {
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(file) = files.get(i) else { return Ok(()) };
            optimize(file)?;
        }
    };
    std::thread::scope(|scope| {
        let other = scope.spawn(work);
        let mine = work();
        let theirs = other.join().unwrap_or_else(|_| Err("a wasm-opt thread failed".into()));
        mine.and(theirs)
    })
}

/// Every file under `dir`, as paths relative to it, in a stable order.
fn files_under(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        let here = dir.join(&relative);
        for entry in std::fs::read_dir(&here).map_err(|e| io_error(&here, e))? {
            let entry = entry.map_err(|e| io_error(&here, e))?;
            let path = relative.join(entry.file_name());
            if entry.file_type().map_err(|e| io_error(&here, e))?.is_dir() {
                pending.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Sixteen hex digits of a SHA-256 over the files' names and contents: any change to any of
/// them gives every file a new name.
fn hash_of(dir: &Path, files: &[PathBuf]) -> Result<String, String> {
    let mut hasher = Sha256::new();
    for file in files {
        let path = dir.join(file);
        let bytes = std::fs::read(&path).map_err(|e| io_error(&path, e))?;
        hasher.update(file.to_string_lossy().as_bytes());
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    Ok(hex(&hasher.finalize()[..8]))
}

/// Writes `file.br` and `file.gz` beside `file`; answers the three sizes.
fn compress_beside(file: &Path) -> Result<(usize, usize, usize), String> {
    let raw = std::fs::read(file).map_err(|e| io_error(file, e))?;

    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gzip.write_all(&raw).map_err(|e| format!("gzip {}: {e}", file.display()))?;
    let gzip = gzip.finish().map_err(|e| format!("gzip {}: {e}", file.display()))?;

    let mut brotli = Vec::new();
    {
        // Quality 11 (the best), a 4 MiB window.
        let mut writer = brotli::CompressorWriter::new(&mut brotli, 64 * 1024, 11, 22);
        writer.write_all(&raw).map_err(|e| format!("brotli {}: {e}", file.display()))?;
    }

    for (suffix, bytes) in [("gz", &gzip), ("br", &brotli)] {
        let mut name = file.as_os_str().to_owned();
        name.push(".");
        name.push(suffix);
        let path = PathBuf::from(name);
        std::fs::write(&path, bytes).map_err(|e| io_error(&path, e))?;
    }
    Ok((raw.len(), gzip.len(), brotli.len()))
}

fn remove_dir(dir: &Path) -> Result<(), String> {
    match std::fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_error(dir, e)),
    }
}

fn io_error(path: &Path, error: std::io::Error) -> String {
    format!("{}: {error}", path.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_changes_with_any_file_and_names_all_of_them() {
        let dir = std::env::temp_dir().join(format!("bundle-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("snippets/x")).expect("dir");
        std::fs::write(dir.join("klens.js"), "js").expect("js");
        std::fs::write(dir.join("snippets/x/inline0.js"), "one").expect("snippet");
        let files = files_under(&dir).expect("files");
        assert_eq!(files, vec![PathBuf::from("klens.js"), PathBuf::from("snippets/x/inline0.js")]);
        let before = hash_of(&dir, &files).expect("hash");
        assert_eq!(before.len(), 16);
        std::fs::write(dir.join("snippets/x/inline0.js"), "two").expect("snippet");
        let after = hash_of(&dir, &files).expect("hash");
        assert_ne!(before, after, "a change in any file renames them all");

        let (raw, gzip, brotli) = compress_beside(&dir.join("klens.js")).expect("compress");
        assert_eq!(raw, 2);
        assert!(dir.join("klens.js.gz").exists() && dir.join("klens.js.br").exists());
        assert!(gzip > 0 && brotli > 0);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn arguments_name_what_is_missing() {
        let args = |list: &[&str]| parse_args(list.iter().map(|s| s.to_string()));
        assert!(args(&["--wasm", "a", "--css", "b"]).err().is_some_and(|e| e.contains("--out")));
        assert!(args(&["--wasm"]).err().is_some_and(|e| e.contains("needs a value")));
        assert!(args(&["--bogus"]).err().is_some_and(|e| e.contains("--bogus")));
        let ok = args(&["--wasm", "a", "--css", "b", "--out", "c"]).expect("args");
        assert_eq!(ok.out, PathBuf::from("c"));
        assert_eq!(ok.budgets, Budgets::default());
        let with_budget = |flag: &str, budget: &str| {
            let required = ["--wasm", "a", "--css", "b", "--out", "c"];
            args(&[&required[..], &[flag, budget]].concat())
        };
        let budgets = with_budget("--max-first-load", "400000").expect("args").budgets;
        assert_eq!(budgets, Budgets { first_load: Some(400_000), piece: None });
        let budgets = with_budget("--max-piece", "90000").expect("args").budgets;
        assert_eq!(budgets, Budgets { first_load: None, piece: Some(90_000) });
        assert!(with_budget("--max-piece", "90KB").err().is_some_and(|e| e.contains("`90KB`")));
    }

    fn sizes() -> Sizes {
        let files = [
            ("klens.js", 10),
            ("klens.wasm", 300),
            ("klens.css", 20),
            ("__wasm_split.js", 5),
            ("split_topics_page_123.wasm", 40),
            ("split_audit_page_456.wasm", 7),
            ("split_produce_form_789.wasm", 90),
            ("chunk_0.wasm", 30),
            ("chunk_1.wasm", 3),
        ];
        let files: Vec<(String, [usize; 3])> = files
            .iter()
            .map(|(name, brotli)| (name.to_string(), [brotli * 4, brotli * 2, *brotli]))
            .collect();
        let needs = BTreeMap::from([
            (
                "topics_page_123".to_string(),
                vec!["chunk_0".into(), "split_topics_page_123".into(), "chunk_0".into()],
            ),
            ("audit_page_456".to_string(), vec!["chunk_1".into(), "split_audit_page_456".into()]),
            // A sheet's split: loaded when it is opened, never a first load.
            (
                "produce_form_789".to_string(),
                vec!["chunk_0".into(), "split_produce_form_789".into()],
            ),
        ]);
        let loads = first_loads(&files, &needs);
        Sizes { files, loads }
    }

    #[test]
    fn a_first_load_is_the_shell_and_the_pieces_of_its_page_once_each() {
        let sizes = sizes();
        assert_eq!(
            sizes.loads,
            vec![
                ("shell".to_string(), 335),
                ("audit".to_string(), 345),
                ("topics".to_string(), 405)
            ]
        );
        assert_eq!(Sizes::from_tsv(&sizes.to_tsv()), Some(sizes));
        assert_eq!(Sizes::from_tsv("file\tklens.js\tten\t1\t1\n"), None);
    }

    #[test]
    fn a_site_over_a_budget_is_refused_with_the_figures() {
        let sizes = sizes();
        assert!(sizes.within(Budgets::default()).is_ok());
        assert!(sizes.within(Budgets { first_load: Some(405), piece: Some(90) }).is_ok());
        let refused =
            sizes.within(Budgets { first_load: Some(400), piece: None }).expect_err("over");
        assert!(refused.contains("the topics page is 405 bytes"), "{refused}");
        assert!(refused.contains("5 over its budget of 400"), "{refused}");
        assert!(!refused.contains("audit"), "{refused}");
        let refused =
            sizes.within(Budgets { first_load: None, piece: Some(39) }).expect_err("over");
        assert!(refused.contains("split_produce_form_789.wasm is 90 bytes"), "{refused}");
        assert!(refused.contains("split_topics_page_123.wasm is 40 bytes"), "{refused}");
        assert!(!refused.contains("klens.wasm"), "the shell is no piece: {refused}");
    }
}
