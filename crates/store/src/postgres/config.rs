//! Where a server project is and how to reach it, following libpq's conventions: a
//! `postgres://` (or `postgresql://`) URL, completed by `PGHOST`, `PGPORT`, `PGUSER`,
//! `PGDATABASE`, `PGSSLMODE` and `PGSSLROOTCERT`; the password from the caller (the desktop
//! app asks for it), else `PGPASSWORD`, else the password file (`PGPASSFILE` or `~/.pgpass`).
//! A password is never taken from the URL, so it never reaches a command line, a log, an error
//! or the app's last-project file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, RootCertStore, SignatureScheme};

/// Does `location` name a server project rather than a file?
pub fn is_server_url(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

/// libpq's `sslmode`: how hard to insist on TLS and on checking the server's certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// Never TLS.
    Disable,
    /// TLS when the server offers it, unchecked (libpq's `allow` and `prefer`).
    Prefer,
    /// TLS always; the certificate is checked only when a root certificate file is given.
    Require,
    /// TLS, with a certificate signed by a trusted root.
    VerifyCa,
    /// TLS, with a trusted certificate for the host name connected to.
    VerifyFull,
}

impl SslMode {
    /// The mode as libpq spells it.
    pub fn name(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }

    fn parse(value: &str) -> Option<SslMode> {
        Some(match value {
            "disable" => SslMode::Disable,
            "allow" | "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            _ => return None,
        })
    }
}

/// A server project's connection settings, the password aside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The host name, address, or a folder holding the server's unix socket.
    pub host: String,
    /// The port.
    pub port: u16,
    /// The user (role) to connect as.
    pub user: String,
    /// The database.
    pub dbname: String,
    /// How to use TLS.
    pub sslmode: SslMode,
    /// A file of trusted root certificates (PEM), when one is named.
    pub root_cert: Option<PathBuf>,
}

/// What the process environment gives, read once so tests can give their own.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    /// A variable's value.
    pub vars: std::collections::HashMap<String, String>,
    /// The home folder, for `~/.pgpass`.
    pub home: Option<PathBuf>,
}

impl Environment {
    /// This process's environment.
    pub fn current() -> Environment {
        Environment {
            vars: std::env::vars().collect(),
            home: std::env::var_os("HOME").map(PathBuf::from),
        }
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

/// Percent-decodes one part of a URL.
fn decode(part: &str) -> Result<String, String> {
    let bytes = part.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = part
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("{part:?} has a % not followed by two hex digits"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("{part:?} is not UTF-8 once decoded"))
}

impl ServerConfig {
    /// Reads a `postgres://[USER@][HOST][:PORT][/DB][?sslmode=…&sslrootcert=…&host=…]` URL,
    /// completing what it leaves out from the environment as libpq does. A URL holding a
    /// password is refused: the password goes in `PGPASSWORD` or the password file.
    pub fn parse(url: &str, env: &Environment) -> Result<ServerConfig, String> {
        let rest = url
            .strip_prefix("postgresql://")
            .or_else(|| url.strip_prefix("postgres://"))
            .ok_or_else(|| format!("{url:?} is not a postgres:// or postgresql:// URL"))?;
        let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let (userinfo, hostport) = match authority.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, authority),
        };
        if userinfo.is_some_and(|u| u.contains(':')) {
            return Err(
                "the project URL holds a password; leave it out and set PGPASSWORD or put it in ~/.pgpass (PGPASSFILE) instead, so it never shows in a command line, a log or an error"
                    .into(),
            );
        }
        let mut user = userinfo.map(decode).transpose()?.filter(|u| !u.is_empty());
        let (mut host, mut port) = split_host_port(hostport)?;
        let mut dbname = Some(decode(path)?).filter(|d| !d.is_empty());
        let mut sslmode = None;
        let mut root_cert = None;
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = decode(value)?;
            match key {
                "sslmode" => {
                    sslmode = Some(SslMode::parse(&value).ok_or_else(|| {
                        format!("sslmode={value} is not one of disable, allow, prefer, require, verify-ca, verify-full")
                    })?)
                }
                "sslrootcert" => root_cert = Some(PathBuf::from(value)),
                "host" => host = Some(value),
                "port" => port = Some(parse_port(&value)?),
                "user" => user = Some(value),
                "dbname" => dbname = Some(value),
                "password" => {
                    return Err(
                        "the project URL holds a password; set PGPASSWORD or use ~/.pgpass instead"
                            .into(),
                    );
                }
                "application_name" | "connect_timeout" => {}
                other => return Err(format!("the project URL's parameter {other:?} is not supported")),
            }
        }
        let host = match host.or_else(|| env.get("PGHOST").map(str::to_string)) {
            Some(h) => h,
            None => "localhost".into(),
        };
        let port = match port {
            Some(p) => p,
            None => env
                .get("PGPORT")
                .map(parse_port)
                .transpose()?
                .unwrap_or(5432),
        };
        let user = user
            .or_else(|| env.get("PGUSER").map(str::to_string))
            .or_else(|| env.get("USER").map(str::to_string))
            .ok_or_else(|| {
                "the project URL names no user, and neither PGUSER nor USER is set".to_string()
            })?;
        let dbname = dbname
            .or_else(|| env.get("PGDATABASE").map(str::to_string))
            .unwrap_or_else(|| user.clone());
        let sslmode = match sslmode {
            Some(m) => m,
            None => match env.get("PGSSLMODE") {
                Some(v) => SslMode::parse(v).ok_or_else(|| {
                    format!("PGSSLMODE={v} is not one of disable, allow, prefer, require, verify-ca, verify-full")
                })?,
                None => SslMode::Prefer,
            },
        };
        let root_cert = root_cert.or_else(|| env.get("PGSSLROOTCERT").map(PathBuf::from));
        Ok(ServerConfig {
            host,
            port,
            user,
            dbname,
            sslmode,
            root_cert,
        })
    }

    /// The project's location as shown and remembered: a URL without any password.
    pub fn location(&self) -> String {
        let host = if self.host.contains(':') && !self.host.starts_with('/') {
            format!("[{}]", self.host)
        } else if self.host.starts_with('/') {
            String::new()
        } else {
            self.host.clone()
        };
        let mut params = Vec::new();
        if self.host.starts_with('/') {
            params.push(format!("host={}", self.host));
        }
        if self.sslmode != SslMode::Prefer {
            params.push(format!("sslmode={}", self.sslmode.name()));
        }
        if let Some(root) = &self.root_cert {
            params.push(format!("sslrootcert={}", root.display()));
        }
        let query = if params.is_empty() {
            String::new()
        } else {
            format!("?{}", params.join("&"))
        };
        format!(
            "postgres://{}@{}:{}/{}{query}",
            self.user, host, self.port, self.dbname
        )
    }

    /// `host:port`, for saying which server cannot be reached.
    pub fn server(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }

    /// The password: the one given, else `PGPASSWORD`, else the password file's entry.
    pub fn password(&self, given: Option<&str>, env: &Environment) -> Option<String> {
        if let Some(p) = given {
            return Some(p.to_string());
        }
        if let Some(p) = env.get("PGPASSWORD") {
            return Some(p.to_string());
        }
        let file = match env.get("PGPASSFILE") {
            Some(f) => PathBuf::from(f),
            None => env.home.as_ref()?.join(".pgpass"),
        };
        let text = readable_passfile(&file)?;
        let host = if self.host.starts_with('/') {
            "localhost"
        } else {
            self.host.as_str()
        };
        pgpass_lookup(&text, host, self.port, &self.dbname, &self.user)
    }

    /// The settings tokio-postgres connects with.
    pub fn connect_config(&self, password: Option<&str>) -> tokio_postgres::Config {
        let mut config = tokio_postgres::Config::new();
        if self.host.starts_with('/') {
            config.host_path(&self.host);
        } else {
            config.host(&self.host);
        }
        config
            .port(self.port)
            .user(&self.user)
            .dbname(&self.dbname)
            .application_name("verity")
            .options("-c search_path=verity")
            .connect_timeout(std::time::Duration::from_secs(10))
            .ssl_mode(match self.sslmode {
                SslMode::Disable => tokio_postgres::config::SslMode::Disable,
                SslMode::Prefer => tokio_postgres::config::SslMode::Prefer,
                _ => tokio_postgres::config::SslMode::Require,
            });
        if let Some(p) = password {
            config.password(p);
        }
        config
    }

    /// The TLS client for this sslmode: verifying the server's certificate for `verify-ca`
    /// and `verify-full` (and for `require` when a root certificate file is given, as libpq
    /// does), against that file or else the system's trusted roots.
    pub fn tls(&self) -> Result<rustls::ClientConfig, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS cannot be set up: {e}"))?;
        let verify = match self.sslmode {
            SslMode::Disable | SslMode::Prefer => false,
            SslMode::Require => self.root_cert.as_deref().is_some_and(Path::is_file),
            SslMode::VerifyCa | SslMode::VerifyFull => true,
        };
        if !verify {
            return Ok(builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(Verifier {
                    chain: None,
                    provider,
                    check_name: false,
                }))
                .with_no_client_auth());
        }
        let mut roots = RootCertStore::empty();
        match &self.root_cert {
            Some(file) => {
                let pem = std::fs::read(file).map_err(|e| {
                    format!(
                        "the root certificate file {} cannot be read: {e}",
                        file.display()
                    )
                })?;
                for cert in rustls::pki_types::pem::PemObject::pem_slice_iter(&pem) {
                    let cert: CertificateDer<'static> = cert.map_err(|e| {
                        format!("{} is not a PEM certificate file: {e:?}", file.display())
                    })?;
                    roots.add(cert).map_err(|e| {
                        format!("{} holds a certificate rustls refuses: {e}", file.display())
                    })?;
                }
            }
            None => {
                for cert in rustls_native_certs::load_native_certs().certs {
                    // A system root rustls cannot use is skipped, as libpq's OpenSSL would.
                    let _ = roots.add(cert);
                }
            }
        }
        let webpki = rustls::client::WebPkiServerVerifier::builder_with_provider(
            Arc::new(roots),
            provider.clone(),
        )
        .build()
        .map_err(|e| format!("TLS cannot be set up: {e}"))?;
        let config = builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Verifier {
                chain: Some(webpki),
                provider,
                check_name: self.sslmode == SslMode::VerifyFull,
            }));
        Ok(config.with_no_client_auth())
    }
}

fn parse_port(value: &str) -> Result<u16, String> {
    value
        .parse()
        .map_err(|_| format!("port {value:?} is not a number from 1 to 65535"))
}

fn split_host_port(hostport: &str) -> Result<(Option<String>, Option<u16>), String> {
    if hostport.is_empty() {
        return Ok((None, None));
    }
    if let Some(rest) = hostport.strip_prefix('[') {
        let (host, after) = rest.split_once(']').ok_or_else(|| {
            format!("{hostport:?} opens an IPv6 address with [ but never closes it")
        })?;
        let port = after.strip_prefix(':').map(parse_port).transpose()?;
        return Ok((Some(host.to_string()), port));
    }
    match hostport.rsplit_once(':') {
        Some((host, port)) => Ok((
            Some(decode(host)?).filter(|h| !h.is_empty()),
            Some(parse_port(port)?),
        )),
        None => Ok((Some(decode(hostport)?), None)),
    }
}

/// The password file's text, unless it is missing or others may read it: libpq ignores a
/// password file that its group or the world can read, and so does Verity.
fn readable_passfile(file: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(file).ok()?.permissions().mode();
        if mode & 0o077 != 0 {
            tracing::warn!(
                file = %file.display(),
                "the password file can be read by others and is ignored; chmod 600 it"
            );
            return None;
        }
    }
    std::fs::read_to_string(file).ok()
}

/// The password of the first `host:port:database:user:password` line that fits, with `*`
/// for any value and `\:` and `\\` escaping a colon and a backslash.
pub fn pgpass_lookup(text: &str, host: &str, port: u16, db: &str, user: &str) -> Option<String> {
    let port = port.to_string();
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields = split_pgpass(line);
        let [h, p, d, u, password] = fields.as_slice() else {
            continue;
        };
        let fits = |field: &str, value: &str| field == "*" || field == value;
        if fits(h, host) && fits(p, &port) && fits(d, db) && fits(u, user) {
            return Some(password.clone());
        }
    }
    None
}

fn split_pgpass(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let (Some(next), Some(field)) = (chars.next(), fields.last_mut()) {
                    field.push(next);
                }
            }
            ':' if fields.len() < 5 => fields.push(String::new()),
            c => {
                if let Some(field) = fields.last_mut() {
                    field.push(c);
                }
            }
        }
    }
    fields
}

/// The server's certificate as `sslmode` asks, as libpq checks it: with no chain verifier
/// (`prefer`, and `require` without a root certificate) encrypted but unchecked; with one
/// (`verify-ca`, `verify-full`) a chain to a trusted root, and the host name only when
/// `check_name` (`verify-full`). The handshake's signatures are always checked.
#[derive(Debug)]
struct Verifier {
    chain: Option<Arc<rustls::client::WebPkiServerVerifier>>,
    provider: Arc<rustls::crypto::CryptoProvider>,
    check_name: bool,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(chain) = &self.chain else {
            return Ok(ServerCertVerified::assertion());
        };
        match chain.verify_server_cert(end_entity, intermediates, server_name, ocsp, now) {
            Err(rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName))
                if !self.check_name =>
            {
                Ok(ServerCertVerified::assertion())
            }
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn env(vars: &[(&str, &str)]) -> Environment {
        Environment {
            vars: vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            home: None,
        }
    }

    #[test]
    fn a_url_is_completed_from_the_environment_as_libpq_does() {
        let e = env(&[
            ("PGPORT", "6543"),
            ("PGDATABASE", "panel"),
            ("PGSSLMODE", "require"),
        ]);
        let c = ServerConfig::parse("postgres://ana@db.example", &e).unwrap();
        assert_eq!(
            (c.host.as_str(), c.port, c.user.as_str(), c.dbname.as_str()),
            ("db.example", 6543, "ana", "panel")
        );
        assert_eq!(c.sslmode, SslMode::Require);
        let c = ServerConfig::parse(
            "postgresql://bo%40lab@[::1]:5433/p%20x?sslmode=verify-full",
            &e,
        )
        .unwrap();
        assert_eq!(
            (c.host.as_str(), c.port, c.user.as_str(), c.dbname.as_str()),
            ("::1", 5433, "bo@lab", "p x")
        );
        assert_eq!(c.sslmode, SslMode::VerifyFull);
        assert_eq!(
            c.location(),
            "postgres://bo@lab@[::1]:5433/p x?sslmode=verify-full"
        );
        assert_eq!(ServerConfig::parse(&c.location(), &e).unwrap(), c);
        let c = ServerConfig::parse(
            "postgres:///panel?host=/tmp/sock",
            &env(&[("USER", "coord")]),
        )
        .unwrap();
        assert_eq!(
            (c.host.as_str(), c.port, c.user.as_str()),
            ("/tmp/sock", 5432, "coord")
        );
        assert_eq!(c.location(), "postgres://coord@:5432/panel?host=/tmp/sock");
    }

    #[test]
    fn a_password_in_the_url_or_a_bad_setting_is_refused_with_a_sentence() {
        let e = env(&[("USER", "x")]);
        let err = ServerConfig::parse("postgres://ana:secret@h/db", &e).unwrap_err();
        assert!(err.contains("PGPASSWORD"), "{err}");
        assert!(!err.contains("secret"), "{err}");
        let err = ServerConfig::parse("postgres://ana@h/db?password=secret", &e).unwrap_err();
        assert!(!err.contains("secret"), "{err}");
        let err = ServerConfig::parse("postgres://ana@h:99999/db", &e).unwrap_err();
        assert!(err.contains("99999"), "{err}");
        let err = ServerConfig::parse("postgres://ana@h/db?sslmode=maybe", &e).unwrap_err();
        assert!(err.contains("verify-full"), "{err}");
    }

    #[test]
    fn the_password_file_is_read_as_libpq_reads_it() {
        let text = "# comment\n\
                    other:5432:*:ana:wrong\n\
                    db.example:5432:panel:ana:first\\:part\n\
                    *:*:*:ana:fallback\n";
        assert_eq!(
            pgpass_lookup(text, "db.example", 5432, "panel", "ana").as_deref(),
            Some("first:part")
        );
        assert_eq!(
            pgpass_lookup(text, "elsewhere", 1, "x", "ana").as_deref(),
            Some("fallback")
        );
        assert_eq!(pgpass_lookup(text, "h", 1, "x", "bo"), None);

        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pass");
        std::fs::write(&file, "*:*:*:ana:from-file\n").unwrap();
        let c = ServerConfig::parse("postgres://ana@h/db", &env(&[])).unwrap();
        let mut e = env(&[("PGPASSFILE", file.to_str().unwrap())]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
            assert_eq!(
                c.password(None, &e),
                None,
                "a file others can read is ignored"
            );
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        assert_eq!(c.password(None, &e).as_deref(), Some("from-file"));
        e.vars.insert("PGPASSWORD".into(), "from-env".into());
        assert_eq!(c.password(None, &e).as_deref(), Some("from-env"));
        assert_eq!(c.password(Some("typed"), &e).as_deref(), Some("typed"));
    }

    #[test]
    fn each_sslmode_gets_its_tls_settings() {
        for mode in ["disable", "prefer", "require", "verify-ca", "verify-full"] {
            let c = ServerConfig::parse(&format!("postgres://ana@h/db?sslmode={mode}"), &env(&[]))
                .unwrap();
            c.tls().unwrap();
        }
        let c = ServerConfig::parse(
            "postgres://ana@h/db?sslmode=verify-full&sslrootcert=/nonexistent/root.crt",
            &env(&[]),
        )
        .unwrap();
        assert!(c.tls().unwrap_err().contains("/nonexistent/root.crt"));
    }
}
