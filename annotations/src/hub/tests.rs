use super::*;
use std::collections::HashMap;

fn settings(vars: &[(&str, &str)]) -> HubSettings {
    let map: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    HubSettings::from_vars(|k| map.get(k).cloned())
}

#[test]
fn the_environment_is_read_as_huggingface_hub_reads_it() {
    let s = settings(&[("HF_HOME", "/h"), ("HF_ENDPOINT", "http://mirror.local/")]);
    assert_eq!(s.cache, PathBuf::from("/h/hub"));
    assert_eq!(s.endpoint, "http://mirror.local");
    assert!(!s.offline);
    let s = settings(&[
        ("HF_HOME", "/h"),
        ("HF_HUB_CACHE", "/c"),
        ("HF_TOKEN", " hf_abc \n"),
        ("HF_HUB_OFFLINE", "YES"),
    ]);
    assert_eq!(s.cache, PathBuf::from("/c"));
    assert_eq!(s.token.as_deref(), Some("hf_abc"));
    assert_eq!(s.token_source.as_deref(), Some("HF_TOKEN"));
    assert!(s.offline);
    let s = settings(&[("XDG_CACHE_HOME", "/x")]);
    assert_eq!(s.cache, PathBuf::from("/x/huggingface/hub"));
}

#[test]
fn a_proxy_applies_by_scheme_unless_no_proxy_names_the_host() {
    let s = settings(&[("HTTPS_PROXY", "http://p:3128")]);
    assert_eq!(
        s.proxy,
        Some(("HTTPS_PROXY".to_string(), "http://p:3128".to_string()))
    );
    let s = settings(&[
        ("HTTPS_PROXY", "http://p:3128"),
        ("NO_PROXY", ".huggingface.co"),
    ]);
    assert_eq!(s.proxy, None);
    let s = settings(&[
        ("HTTP_PROXY", "http://p:3128"),
        ("HF_ENDPOINT", "https://hub"),
    ]);
    assert_eq!(s.proxy, None);
}

#[test]
fn a_split_is_found_by_the_names_datasets_gives_its_files() {
    let files: Vec<String> = [
        "README.md",
        "data/test-00000-of-00002.parquet",
        "data/test-00001-of-00002.parquet",
        "data/dev-00000-of-00001.parquet",
        "default/train/0000.parquet",
        "annotations/test-00000-of-00001.parquet",
        "lite.parquet",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let c = "0".repeat(40);
    assert_eq!(
        split_files("o/n", &c, "test", &files).expect("test split"),
        [
            "data/test-00000-of-00002.parquet",
            "data/test-00001-of-00002.parquet"
        ]
    );
    assert_eq!(
        split_files("o/n", &c, "train", &files).expect("train split"),
        ["default/train/0000.parquet"]
    );
    assert_eq!(
        split_files("o/n", &c, "lite", &files).expect("a file named as the split"),
        ["lite.parquet"]
    );
    let err = split_files("o/n", &c, "validation", &files).expect_err("no such split");
    assert!(
        err.to_string()
            .ends_with("its splits: dev, lite, test, train"),
        "{err}"
    );
    let err =
        split_files("o/n", &c, "test", &["README.md".to_string()]).expect_err("no parquet at all");
    assert!(err.to_string().contains("refs/convert/parquet"), "{err}");
}
