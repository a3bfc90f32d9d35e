// A panel server's address and the user to connect as, kept apart in the "Open a panel server"
// dialog and joined into one postgres:// URL for the shell. The password is never part of it.

const SCHEME = /^(postgres(?:ql)?:\/\/)(.*)$/;

/** Splits `postgres://USER@HOST:PORT/DB` into the address without the user, and the user. */
export function splitUser(url: string): { address: string; user: string } {
  const m = SCHEME.exec(url.trim());
  if (!m) return { address: url.trim(), user: '' };
  const [, scheme, rest] = m;
  const end = rest.search(/[/?]/);
  const authority = end === -1 ? rest : rest.slice(0, end);
  const tail = end === -1 ? '' : rest.slice(end);
  const at = authority.lastIndexOf('@');
  if (at === -1) return { address: url.trim(), user: '' };
  let user = authority.slice(0, at);
  try {
    user = decodeURIComponent(user);
  } catch {
    // Not percent-encoded as a URL would be: keep it as typed.
  }
  return { address: `${scheme}${authority.slice(at + 1)}${tail}`, user };
}

/** The URL to connect with: `address` with `user` put in (replacing one it names). */
export function joinUser(address: string, user: string): string {
  const name = user.trim();
  if (!name) return address.trim();
  const { address: bare } = splitUser(address);
  const m = SCHEME.exec(bare);
  if (!m) return address.trim();
  return `${m[1]}${encodeURIComponent(name)}@${m[2]}`;
}
