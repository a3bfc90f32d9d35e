"""Checks the tests' Hugging Face Hub (crates/testkit/src/hub_server) with huggingface_hub's own
client, so that the server Verity's fetch and publish are tested against cannot drift from the
real API: create_repo, upload_folder (the card validated, pre-upload, regular files in the
commit, LFS files through the batch API, upload and verify), hf_hub_download (HEAD, then the
file), a refused token (401), a 429 with Retry-After (retried), and a commit whose parent moved
(409). Then, when given a dataset Verity published to the same server, reads every config its
card declares with pyarrow.

Usage: python3 bench/hub_check.py ENDPOINT TOKEN WORK [DATASET FOLDER]
  ENDPOINT  the server (examples/hub_serve.rs 0 DIR --token TOKEN)
  TOKEN     the one token it accepts
  WORK      a scratch folder
  DATASET   OWNER/NAME of a dataset `verity publish` sent there, with FOLDER the folder
            `verity export --format hub` wrote
Prints one line per check and exits 1 on the first that fails.
"""

import io
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from huggingface_hub import HfApi, hf_hub_download
from huggingface_hub.errors import HfHubHTTPError


def check(name, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}")
    if not ok:
        sys.exit(1)


def status_of(call):
    try:
        call()
    except HfHubHTTPError as e:
        return e.response.status_code
    return 200


def parquet_bytes(rows):
    out = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), out)
    return out.getvalue()


def card_configs(text):
    """The configs of a card's YAML block: (name, [(split, path pattern)])."""
    _, block, _ = text.split("---\n", 2)
    meta = yaml.safe_load(block)
    return meta, [
        (c["config_name"], [(f["split"], f["path"]) for f in c["data_files"]])
        for c in meta["configs"]
    ]


def main():
    endpoint, token, work = sys.argv[1:4]
    api = HfApi(endpoint=endpoint, token=token)
    repo = "check/dataset"

    url = api.create_repo(repo, repo_type="dataset", private=True)
    check("create_repo makes a private dataset", str(url).endswith(f"/datasets/{repo}"), str(url))
    check("create_repo again with exist_ok", status_of(lambda: api.create_repo(repo, repo_type="dataset", exist_ok=True)) == 200)
    check("create_repo again without exist_ok is 409", status_of(lambda: api.create_repo(repo, repo_type="dataset")) == 409)

    folder = os.path.join(work, "folder")
    os.makedirs(os.path.join(folder, "data"), exist_ok=True)
    card = "---\nlicense: mit\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n    path: data/test-*.parquet\n---\n\n# check\n"
    files = {
        "README.md": card.encode(),
        "notes.txt": b"plain text\n",
        "data/test-00000-of-00001.parquet": parquet_bytes([{"instance_id": "a", "n": 1}, {"instance_id": "b", "n": 2}]),
        "big.bin": os.urandom(11 << 20),
    }
    for path, content in files.items():
        with open(os.path.join(folder, path), "wb") as f:
            f.write(content)

    throttled = HfApi(endpoint=endpoint, token=token, headers={"x-test-fault": "429:/preupload/"})
    info = throttled.upload_folder(repo_id=repo, repo_type="dataset", folder_path=folder, commit_message="first")
    check("upload_folder commits after a 429 with Retry-After on pre-upload", len(info.oid) == 40, info.oid)

    for path, content in files.items():
        local = hf_hub_download(repo, path, repo_type="dataset", endpoint=endpoint, token=token,
                                cache_dir=os.path.join(work, "cache"))
        with open(local, "rb") as f:
            got = f.read()
        check(f"hf_hub_download gives back {path}", got == content, f"{len(got)} bytes")
    table = pq.read_table(hf_hub_download(repo, "data/test-00000-of-00001.parquet", repo_type="dataset",
                                          endpoint=endpoint, token=token, cache_dir=os.path.join(work, "cache")))
    check("pyarrow reads the uploaded Parquet file", table.num_rows == 2)

    refused = HfApi(endpoint=endpoint, token="hf_refused")
    check("a refused token gets 401",
          status_of(lambda: refused.upload_folder(repo_id=repo, repo_type="dataset", folder_path=folder)) == 401)

    stale = info.oid
    with open(os.path.join(folder, "notes.txt"), "wb") as f:
        f.write(b"changed once\n")
    api.upload_folder(repo_id=repo, repo_type="dataset", folder_path=folder, commit_message="second")
    with open(os.path.join(folder, "notes.txt"), "wb") as f:
        f.write(b"changed twice\n")
    check("a commit on a parent that moved gets 409",
          status_of(lambda: api.upload_folder(repo_id=repo, repo_type="dataset", folder_path=folder,
                                              parent_commit=stale)) == 409)

    if len(sys.argv) > 5:
        dataset, exported = sys.argv[4:6]
        cache = os.path.join(work, "published")
        readme = hf_hub_download(dataset, "README.md", repo_type="dataset", endpoint=endpoint, token=token, cache_dir=cache)
        with open(readme, encoding="utf-8") as f:
            meta, configs = card_configs(f.read())
        check("the published card has its metadata",
              bool(meta.get("license")) and "expert-generated" in meta["annotations_creators"], str(meta.get("license")))
        with open(os.path.join(exported, "README.md"), encoding="utf-8") as f:
            _, local_configs = card_configs(f.read())
        check("the published card declares the exported configs", configs == local_configs, str(configs))
        siblings = [s.rfilename for s in api.dataset_info(dataset).siblings]
        for name, data_files in configs:
            for split, pattern in data_files:
                prefix = pattern.split("*")[0]
                paths = sorted(p for p in siblings if p.startswith(prefix) and p.endswith(".parquet"))
                tables = [pq.read_table(hf_hub_download(dataset, p, repo_type="dataset", endpoint=endpoint,
                                                        token=token, cache_dir=cache)) for p in paths]
                rows = sum(t.num_rows for t in tables)
                local = sum(pq.read_metadata(os.path.join(exported, p)).num_rows for p in paths)
                check(f"pyarrow reads config {name!r} split {split!r} from the Hub",
                      bool(paths) and rows == local and all(t.schema == tables[0].schema for t in tables),
                      f"{len(paths)} files, {rows} rows")


if __name__ == "__main__":
    main()
