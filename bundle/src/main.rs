//! `bundle`: turns the front end compiled for `wasm32-unknown-unknown` into the web assets klens
//! serves under `/pkg`, in one folder:
//!
//! 1. the JavaScript bindings and the final WASM (wasm-bindgen, as a library of this program);
//! 2. the WASM made smaller by `wasm-opt -Oz -Oz` (binaryen, from `PATH` or `WASM_OPT`);
//! 3. the stylesheet beside them;
//! 4. every file named after one hash of the whole set, so a browser may keep them for a year;
//! 5. a brotli and a gzip copy of each file;
//! 6. with `--max-wasm-brotli`, a refusal of a WASM whose brotli copy is over that budget.
//!
//! The folder's `bundle.txt` holds the names' stem (`klens.<hash>`): the server reads it, or
//! embeds the folder with it, to name the files in its pages. Sizes are printed at the end.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use sha2::{Digest, Sha256};

const USAGE: &str = "usage: bundle --wasm FILE --css FILE --out DIR [--max-wasm-brotli BYTES]

  --wasm FILE               the front end as cargo built it for wasm32-unknown-unknown
  --css FILE                the stylesheet
  --out DIR                 where the site goes: DIR/pkg holds the files, DIR/bundle.txt their stem
  --max-wasm-brotli BYTES   refuse the site when the WASM's brotli copy is larger than this

Environment: WASM_OPT names the wasm-opt program (default: wasm-opt on PATH).";

/// How wasm-opt is run: smallest code, the bulk-memory instructions Rust emits, no names. The
/// size passes run twice: the second finds what the first one's inlining and merging opened up
/// (about 4 KB less with brotli, for some 30 s more on two cores).
const WASM_OPT_ARGS: [&str; 4] = ["-Oz", "-Oz", "--enable-bulk-memory", "--strip-debug"];

/// The stem wasm-bindgen gives the files before they are renamed after their hash.
const STEM: &str = "klens";

struct Args {
    wasm: PathBuf,
    css: PathBuf,
    out: PathBuf,
    /// The most bytes the WASM's brotli copy may take, when there is a budget.
    max_wasm_brotli: Option<usize>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut wasm, mut css, mut out, mut budget) = (None, None, None, None);
    while let Some(arg) = args.next() {
        let slot = match arg.as_str() {
            "--wasm" => &mut wasm,
            "--css" => &mut css,
            "--out" => &mut out,
            "--max-wasm-brotli" => &mut budget,
            "--help" | "-h" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        };
        *slot = Some(args.next().ok_or_else(|| format!("{arg} needs a value"))?);
    }
    let max_wasm_brotli = match budget {
        None => None,
        Some(text) => Some(
            text.parse()
                .map_err(|_| format!("--max-wasm-brotli takes a number of bytes, not `{text}`"))?,
        ),
    };
    Ok(Args {
        wasm: wasm.ok_or("--wasm is required")?.into(),
        css: css.ok_or("--css is required")?.into(),
        out: out.ok_or("--out is required")?.into(),
        max_wasm_brotli,
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

fn run(args: &Args) -> Result<(), String> {
    let started = std::time::Instant::now();
    let mut steps = Vec::new();
    let mut step = |name: &'static str| steps.push((name, started.elapsed()));
    std::fs::create_dir_all(&args.out).map_err(|e| io_error(&args.out, e))?;
    // The same inputs give the same site: skip the minutes wasm-opt takes.
    let inputs = inputs_hash(args)?;
    let inputs_file = args.out.join("inputs.txt");
    let stem_file = args.out.join("bundle.txt");
    let pkg = args.out.join("pkg");
    if std::fs::read_to_string(&inputs_file).is_ok_and(|seen| seen.trim() == inputs) && pkg.is_dir()
    {
        if let Ok(stem) = std::fs::read_to_string(&stem_file) {
            // The budget is not among the inputs (changing it needs no new site): check the
            // site there is against it.
            let brotli = pkg.join(format!("{}.wasm.br", stem.trim()));
            let size = std::fs::metadata(&brotli).map_err(|e| io_error(&brotli, e))?;
            within_budget(size.len() as usize, args.max_wasm_brotli)?;
            println!("bundle: {} is up to date ({})", args.out.display(), stem.trim());
            return Ok(());
        }
    }
    // Built aside and swapped in at the end, so a failed run leaves the last good site.
    let staging = args.out.join("pkg.new");
    remove_dir(&staging)?;

    let mut output = wasm_bindgen_cli_support::Bindgen::new()
        .input_path(&args.wasm)
        .out_name(STEM)
        .web(true)
        .map_err(|e| format!("wasm-bindgen: {e:#}"))?
        .typescript(false)
        .remove_producers_section(true)
        .generate_output()
        .map_err(|e| format!("wasm-bindgen on {}: {e:#}", args.wasm.display()))?;
    output
        .emit(&staging)
        .map_err(|e| format!("wasm-bindgen writing {}: {e:#}", staging.display()))?;
    step("bindings");

    let bound = staging.join(format!("{STEM}_bg.wasm"));
    optimize(&bound)?;
    step("wasm-opt");
    let css = std::fs::read(&args.css).map_err(|e| io_error(&args.css, e))?;
    let css_path = staging.join(format!("{STEM}.css"));
    std::fs::write(&css_path, css).map_err(|e| io_error(&css_path, e))?;

    let mut files = files_under(&staging)?;
    let name = format!("{STEM}.{}", hash_of(&staging, &files)?);
    // What wasm-bindgen and the stylesheet step named each file, and its name under the hash.
    let renames = [
        (format!("{STEM}.js"), format!("{name}.js")),
        (format!("{STEM}_bg.wasm"), format!("{name}.wasm")),
        (format!("{STEM}.css"), format!("{name}.css")),
    ];
    let mut renamed_files = 0;
    for file in &mut files {
        let Some((_, renamed)) = renames.iter().find(|(from, _)| file.as_os_str() == from.as_str())
        else {
            continue;
        };
        let (from, to) = (staging.join(&*file), staging.join(renamed));
        std::fs::rename(&from, &to).map_err(|e| io_error(&from, e))?;
        *file = renamed.into();
        renamed_files += 1;
    }
    if renamed_files != renames.len() {
        return Err(format!(
            "{} lacks one of {STEM}.js, {STEM}_bg.wasm and {STEM}.css",
            staging.display()
        ));
    }

    let mut sizes = Vec::new();
    for file in &files {
        sizes.push((file.clone(), compress_beside(&staging.join(file))?));
    }
    step("compression");
    let wasm_file = PathBuf::from(format!("{name}.wasm"));
    let wasm_brotli = sizes
        .iter()
        .find(|(file, _)| *file == wasm_file)
        .map(|(_, (_, _, brotli))| *brotli)
        .ok_or("wasm-bindgen wrote no WASM file")?;
    // Checked before the new site replaces the last one, which stays as it was; the refused
    // one is left in the staging folder to look at.
    within_budget(wasm_brotli, args.max_wasm_brotli)
        .map_err(|e| format!("{e} (the refused site is in {})", staging.display()))?;

    remove_dir(&pkg)?;
    std::fs::rename(&staging, &pkg).map_err(|e| io_error(&staging, e))?;
    std::fs::write(&stem_file, format!("{name}\n")).map_err(|e| io_error(&stem_file, e))?;
    std::fs::write(&inputs_file, format!("{inputs}\n")).map_err(|e| io_error(&inputs_file, e))?;

    println!("bundle: {} ({name})", pkg.display());
    let mut before = std::time::Duration::ZERO;
    for (name, at) in steps {
        println!("  {name}: {:.1} s", (at - before).as_secs_f64());
        before = at;
    }
    println!("{:<48} {:>10} {:>10} {:>10}", "file", "raw", "gzip", "brotli");
    for (file, (raw, gzip, brotli)) in sizes {
        println!("{:<48} {raw:>10} {gzip:>10} {brotli:>10}", file.display());
    }
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
    Ok(hex(&hasher.finalize()))
}

/// The WASM's brotli size against its budget: a refusal that says by how much, and where to
/// look.
fn within_budget(brotli: usize, budget: Option<usize>) -> Result<(), String> {
    match budget {
        Some(most) if brotli > most => Err(format!(
            "the WASM is {brotli} bytes with brotli, {} over its budget of {most} \
             (--max-wasm-brotli, WASM_BUDGET in the Makefile); dev/wasm-sizes on the module \
             cargo built shows where its code goes",
            brotli - most
        )),
        _ => Ok(()),
    }
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
    let status =
        Command::new(&program).args(WASM_OPT_ARGS).arg(file).arg("-o").arg(file).status().map_err(
            |e| {
                format!(
                    "cannot run {} ({e}); `make tools` installs binaryen's wasm-opt",
                    program.to_string_lossy()
                )
            },
        )?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("wasm-opt failed on {} ({status})", file.display()))
    }
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
        assert_eq!(ok.max_wasm_brotli, None);
        let with_budget = |budget: &str| {
            let required = ["--wasm", "a", "--css", "b", "--out", "c"];
            args(&[&required[..], &["--max-wasm-brotli", budget]].concat())
        };
        assert_eq!(with_budget("600000").expect("args").max_wasm_brotli, Some(600_000));
        assert!(with_budget("600KB").err().is_some_and(|e| e.contains("`600KB`")));
    }

    #[test]
    fn a_wasm_over_its_budget_is_refused_with_the_figures() {
        assert!(within_budget(600_000, Some(600_000)).is_ok());
        assert!(within_budget(700_000, None).is_ok());
        let refused = within_budget(600_001, Some(600_000)).expect_err("over the budget");
        assert!(refused.contains("600001 bytes"), "{refused}");
        assert!(refused.contains("1 over its budget of 600000"), "{refused}");
    }
}
