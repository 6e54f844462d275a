import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SBIN = ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin'];
const which = (name: string) => SBIN.map((dir) => path.join(dir, name)).find((file) => existsSync(file));

/** Whether this machine can start a MariaDB of its own (scripts/test-services.sh installs it in CI). */
export const canStartMariadb = () => which('mariadbd') !== undefined && which('mariadb-install-db') !== undefined;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * A throwaway MariaDB server of this suite's own (its own datadir and port, like
 * scripts/test-services.sh), so that it can be killed and restarted without touching the one
 * other suites share. Server defaults are kept: InnoDB flushes its log at every commit.
 */
export class ThrowawayMariadb {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'affiliated-mariadb-'));
  readonly socket = path.join(this.dir, 'mysqld.sock');
  port = 0;
  private child: ChildProcess | undefined;

  get url(): string {
    return `mysql://affiliated:affiliated@127.0.0.1:${this.port}/crash`;
  }

  async install(): Promise<void> {
    this.port = await freePort();
    await run(which('mariadb-install-db') ?? 'mariadb-install-db', [
      '--no-defaults',
      `--datadir=${path.join(this.dir, 'data')}`,
      '--user=root',
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
    ]);
    await this.start();
    await this.sql(
      "CREATE USER 'affiliated'@'127.0.0.1' IDENTIFIED BY 'affiliated'; " +
        "GRANT ALL PRIVILEGES ON *.* TO 'affiliated'@'127.0.0.1'; CREATE DATABASE crash CHARACTER SET utf8mb4;",
    );
  }

  async start(): Promise<void> {
    this.child = spawn(
      which('mariadbd') ?? 'mariadbd',
      [
        '--no-defaults',
        `--datadir=${path.join(this.dir, 'data')}`,
        `--socket=${this.socket}`,
        `--port=${this.port}`,
        '--bind-address=127.0.0.1',
        '--user=root',
        `--pid-file=${path.join(this.dir, 'mysqld.pid')}`,
        '--innodb-buffer-pool-size=64M',
        '--skip-name-resolve',
        `--log-error=${path.join(this.dir, 'mysqld.err')}`,
      ],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 240; i++) {
      if (await this.ping()) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`mariadbd did not start (see ${path.join(this.dir, 'mysqld.err')})`);
  }

  /** SIGKILL: a crash, with no chance to flush anything not already flushed. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  async remove(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async ping(): Promise<boolean> {
    try {
      await run(which('mariadb-admin') ?? 'mariadb-admin', [`--socket=${this.socket}`, '-uroot', 'ping']);
      return true;
    } catch {
      return false;
    }
  }

  private async sql(statements: string): Promise<void> {
    await run(which('mariadb') ?? 'mariadb', [`--socket=${this.socket}`, '-uroot', '-e', statements]);
  }
}
