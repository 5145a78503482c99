//! Loading content: the shipped files, file handling and located errors.

use gaskit::{Catalog, CatalogBuilder, DEFAULT_CONTENT_FILES};

#[test]
fn shipped_content_loads_without_warnings_and_matches_the_files_on_disk() {
    let catalog = Catalog::with_defaults();
    assert!(catalog.warnings().is_empty(), "{:?}", catalog.warnings());
    for (path, text) in DEFAULT_CONTENT_FILES {
        assert_eq!(&std::fs::read_to_string(path).unwrap(), text, "{path}");
    }
    // Loading the directory from disk gives the same catalog.
    let mut builder = CatalogBuilder::new();
    builder.tags().add_dir("tags");
    builder.add_dir("abilities");
    let from_disk = builder.build().unwrap();
    assert_eq!(from_disk.attributes().len(), catalog.attributes().len());
    assert_eq!(from_disk.tags().len(), catalog.tags().len());
}

#[test]
fn syntax_errors_are_located() {
    let mut builder = CatalogBuilder::with_defaults();
    builder.add_source(
        "broken.ron",
        "(\n  attributes: [\n    (name: \"Mana\" base: 3),\n  ],\n)",
    );
    let errors = builder.build().unwrap_err();
    let d = &errors.0[0];
    assert_eq!((d.file.as_str(), d.line), ("broken.ron", 3));
    assert!(d
        .snippet
        .as_deref()
        .unwrap()
        .contains("(name: \"Mana\" base: 3)"));
}

#[test]
fn unknown_sections_and_fields_are_errors_not_silently_ignored() {
    let mut builder = CatalogBuilder::with_defaults();
    builder.add_source("typo.ron", "(attributez: [])");
    let errors = builder.build().unwrap_err();
    assert!(errors.to_string().contains("attributez"), "{errors}");
}

#[test]
fn errors_from_every_file_are_reported_together() {
    let mut builder = CatalogBuilder::with_defaults();
    builder.add_source("a.ron", "(attributes: [(name: \"A\", max: \"Nope\")])");
    builder.add_source("b.ron", "(attributes: [(name: \"B\", min: \"Nada\")])");
    builder.add_bytes("c.ron", b"(attributes: [(name: \"\xC3\x28\")])");
    let errors = builder.build().unwrap_err();
    let files: Vec<&str> = errors.0.iter().map(|d| d.file.as_str()).collect();
    assert_eq!(files, ["c.ron", "a.ron", "b.ron"]);
    assert!(errors.0[0].message.contains("not valid UTF-8"));
}

#[test]
fn missing_files_and_directories_are_errors() {
    let mut builder = CatalogBuilder::with_defaults();
    builder.add_file("does/not/exist.ron");
    builder.add_dir("does/not/exist");
    let errors = builder.build().unwrap_err();
    assert_eq!(errors.0.len(), 2);
    assert!(errors.0[0].message.contains("cannot read content file"));
    assert!(errors.0[1]
        .message
        .contains("cannot list content directory"));
}
