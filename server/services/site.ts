/**
 * The daemon's address as browsers reach it, for links in mails: `PUBLIC_URL`, else the address
 * the daemon listens on (right on one machine only; docs/portal.md says to set PUBLIC_URL). Never
 * taken from a request's Host header, which a stranger chooses: a reset link must not point
 * anywhere else.
 */
export interface Site {
  url(): string;
  /** Told by the daemon once it listens. */
  listening(url: string): void;
}

export function site(publicUrl: string | undefined): Site {
  let listeningUrl = 'http://127.0.0.1:3000';
  return {
    url: () => publicUrl ?? listeningUrl,
    listening(url) {
      listeningUrl = url;
    },
  };
}
