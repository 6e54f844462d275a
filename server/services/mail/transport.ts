import nodemailer from 'nodemailer';

/** What an attempt to hand a mail to the SMTP server came to. */
export type SendResult = { ok: true } | { ok: false; permanent: boolean; error: string };

export interface MailTransport {
  send(mail: { from: string; to: string; subject: string; text: string; html: string }): Promise<SendResult>;
  close(): void;
}

/**
 * nodemailer over `SMTP_URL` (`smtp://` upgrades with STARTTLS when the server offers it,
 * `smtps://` is TLS from the start). Its own logger stays off: it would print addresses and the
 * mail's text, which holds reset links. A 5xx answer is permanent (the address is refused);
 * anything else (4xx, a connection that failed) is tried again later.
 */
export function smtpTransport(smtpUrl: string): MailTransport {
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    logger: false,
    debug: false,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send(mail) {
      try {
        await transport.sendMail(mail);
        return { ok: true };
      } catch (err) {
        const e = err as { responseCode?: number; code?: string; message?: string };
        const code = e.responseCode ?? e.code ?? 'error';
        // The server's words, without what nodemailer might quote of the mail.
        const reason = (e.message ?? '').split('\n')[0]?.slice(0, 300) ?? '';
        return {
          ok: false,
          permanent: e.responseCode !== undefined && e.responseCode >= 500,
          error: `${code}: ${reason}`,
        };
      }
    },
    close() {
      transport.close();
    },
  };
}
