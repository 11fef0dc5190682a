/**
 * `scripts/stack.sh` marks Kafka as fetched only when Maven delivered the broker's jars: its
 * `kafka_fetch`, sourced from a copy of the script in a scratch checkout, runs against a stand-in
 * `mvn` on PATH that behaves as Maven does with `dependency:copy-dependencies` (a relative
 * `-DoutputDirectory` is read against the pom's folder) and writes the jars it is told to. Before:
 * with a relative `STACK_DIR` the jars went beside the pom, the script logged "fetched 0 jars" and
 * wrote the marker, and every later start failed on `kafka.tools.StorageTool`.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const POM = join(ROOT, 'scripts/kafka/pom.xml');
const VERSION = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(readFileSync(POM, 'utf8'))![1];
const BROKER_JARS = [`kafka_2.13-${VERSION}.jar`, `kafka-clients-${VERSION}.jar`, 'slf4j-api-2.0.0.jar'];

/** The stand-in Maven: records its call, resolves -DoutputDirectory as Maven does, writes $FAKE_MVN_JARS there. */
const FAKE_MVN = `#!/usr/bin/env bash
echo "mvn $*" >>"$FAKE_MVN_CALLS"
pom= out=
for a in "$@"; do case "$a" in -DoutputDirectory=*) out=\${a#*=} ;; esac; done
while [ $# -gt 0 ]; do [ "$1" = -f ] && pom=$2; shift; done
[[ "$out" = /* ]] || out="$(dirname "$pom")/$out"
mkdir -p "$out"
for j in $FAKE_MVN_JARS; do echo jar >"$out/$j"; done
`;

let scratch: string;

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'stack-fetch-'));
  mkdirSync(join(scratch, 'repo/scripts/kafka'), { recursive: true });
  copyFileSync(join(ROOT, 'scripts/stack.sh'), join(scratch, 'repo/scripts/stack.sh'));
  copyFileSync(POM, join(scratch, 'repo/scripts/kafka/pom.xml'));
  mkdirSync(join(scratch, 'bin'));
  writeFileSync(join(scratch, 'bin/mvn'), FAKE_MVN);
  chmodSync(join(scratch, 'bin/mvn'), 0o755);
  mkdirSync(join(scratch, 'cwd'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

/** Sources the scratch copy of stack.sh in `cwd` with a relative STACK_DIR and calls kafka_fetch. */
function fetch(jars: readonly string[]): { status: number | null; stderr: string } {
  const r = spawnSync('bash', ['-c', 'source "$1" && kafka_fetch', '_', join(scratch, 'repo/scripts/stack.sh')], {
    cwd: join(scratch, 'cwd'),
    env: { ...process.env, PATH: `${join(scratch, 'bin')}:${process.env.PATH}`, STACK_DIR: 'rel/.stack', FAKE_MVN_JARS: jars.join(' '), FAKE_MVN_CALLS: join(scratch, 'calls') },
    encoding: 'utf8',
  });
  return { status: r.status, stderr: r.stderr };
}

const libs = () => join(scratch, 'cwd/rel/.stack/kafka/libs');
const calls = () => (existsSync(join(scratch, 'calls')) ? readFileSync(join(scratch, 'calls'), 'utf8').trim().split('\n').length : 0);

describe('scripts/stack.sh kafka_fetch', () => {
  it('Given a relative STACK_DIR, When Maven delivers the jars, Then they and the marker land under STACK_DIR (read from the caller), none beside the pom', () => {
    const r = fetch(BROKER_JARS);
    expect(r.stderr).toContain(`fetched ${BROKER_JARS.length} jars`);
    expect(r.status).toBe(0);
    expect(readdirSync(libs()).sort()).toEqual([...BROKER_JARS, '.fetched'].sort());
    expect(readFileSync(join(libs(), '.fetched'), 'utf8')).toContain(`kafka.version=${VERSION}`);
    expect(existsSync(join(scratch, 'repo/scripts/kafka/rel'))).toBe(false);
  });

  it('Given Maven ends without error but delivers no broker jar, Then the fetch fails saying so, and nothing is marked as fetched', () => {
    const r = fetch(['slf4j-api-2.0.0.jar']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`delivered 1 jars, not kafka_2.13-${VERSION}.jar`);
    expect(r.stderr).toContain('nothing was marked as fetched');
    expect(existsSync(libs())).toBe(false);
  });

  it('Given a marker an older fetch wrote over no jars, Then the next start fetches again rather than trust it', () => {
    mkdirSync(libs(), { recursive: true });
    const marker = spawnSync('bash', ['-c', 'source "$1" && fetch_marker_content', '_', join(scratch, 'repo/scripts/stack.sh')], { encoding: 'utf8' }).stdout;
    writeFileSync(join(libs(), '.fetched'), marker);
    const r = fetch(BROKER_JARS);
    expect(r.status).toBe(0);
    expect(calls()).toBe(1);
    expect(readdirSync(libs())).toEqual(expect.arrayContaining(BROKER_JARS));
    // and once complete, a second start trusts the marker
    expect(fetch(BROKER_JARS).stderr).toContain('already in');
    expect(calls()).toBe(1);
  });
});
