// Fixtures for tests of the SSRF-safe fetch and what uses it: a DNS server on loopback, listeners that
// count connections, and a guard that keeps every outgoing TCP connection of the test on loopback.
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { BlockList, createServer, isIP, type Server, Socket } from 'node:net';

export type RecordType = 'A' | 'AAAA';
/**
 * Answers one question: the addresses for `name`/`type`, or null for "no such name". `asked` counts
 * the earlier questions for the same name and type (0 the first time), for answers that change.
 */
export type DnsAnswer = (name: string, type: RecordType, asked: number) => string[] | null;

const TYPES: Record<number, RecordType> = { 1: 'A', 28: 'AAAA' };

function ipv6Bytes(address: string): Buffer {
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...new Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = Buffer.alloc(16);
  all.forEach((g, i) => {
    bytes.writeUInt16BE(Number.parseInt(g, 16), i * 2);
  });
  return bytes;
}

/** A DNS server on 127.0.0.1 (UDP) answering A and AAAA questions from a function; TTL 0. */
export class TestDns {
  /** Every question heard, in order. */
  readonly questions: { name: string; type: RecordType | number }[] = [];
  private constructor(
    private readonly socket: UdpSocket,
    private readonly answer: DnsAnswer,
  ) {
    socket.on('message', (message, from) => {
      const reply = this.reply(message);
      if (reply) socket.send(reply, from.port, from.address);
    });
  }

  static async start(answer: DnsAnswer): Promise<TestDns> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return new TestDns(socket, answer);
  }

  /** For SafeFetchOptions.dnsServers or HEARTH_FETCH_DNS_SERVERS. */
  get server(): string {
    return `127.0.0.1:${this.socket.address().port}`;
  }

  /** How many times `name` was asked for `type`. */
  asked(name: string, type: RecordType): number {
    return this.questions.filter((q) => q.name === name && q.type === type).length;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private reply(message: Buffer): Buffer | null {
    if (message.length < 12) return null;
    const labels: string[] = [];
    let offset = 12;
    while (offset < message.length && message[offset] !== 0) {
      const length = message.readUInt8(offset);
      labels.push(message.toString('latin1', offset + 1, offset + 1 + length));
      offset += 1 + length;
    }
    offset += 1;
    if (offset + 4 > message.length) return null;
    const name = labels.join('.').toLowerCase();
    const code = message.readUInt16BE(offset);
    const type = TYPES[code];
    const asked = type ? this.asked(name, type) : 0;
    this.questions.push({ name, type: type ?? code });
    const addresses = type ? this.answer(name, type, asked) : [];
    const records = (addresses ?? []).filter((a) => isIP(a) === (type === 'A' ? 4 : 6));
    const header = Buffer.alloc(12);
    header.writeUInt16BE(message.readUInt16BE(0), 0);
    // A response, authoritative, recursion as asked and available; rcode 3 = no such name.
    header.writeUInt16BE(0x8480 | (message.readUInt16BE(2) & 0x0100) | (addresses === null ? 3 : 0), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(records.length, 6);
    const answers = records.map((address) => {
      const data = type === 'A' ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      record.writeUInt16BE(code, 2);
      record.writeUInt16BE(1, 4); // class IN
      record.writeUInt32BE(0, 6); // TTL 0: never kept
      record.writeUInt16BE(data.length, 10);
      return Buffer.concat([record, data]);
    });
    return Buffer.concat([header, message.subarray(12, offset + 4), ...answers]);
  }
}

/** A TCP listener that only counts the connections it is offered (and closes them). */
export class CountingListener {
  connections = 0;
  private constructor(readonly server: Server) {
    server.on('connection', (socket) => {
      this.connections++;
      socket.destroy();
    });
  }

  /** Listens on `host` (an address), on `port` or a free one; null when the address cannot be bound. */
  static async start(host: string, port = 0): Promise<CountingListener | null> {
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, host, () => resolve(true));
    });
    return bound ? new CountingListener(server) : null;
  }

  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Records the target of every TCP connection this process starts (HTTP and TLS go through
 * net.Socket#connect) and fails any that is not loopback before a packet leaves, so even a broken
 * fetch under test cannot send traffic anywhere else. Returns the log and a function that removes
 * the guard.
 */
export function guardLoopbackOnly(): { attempts: string[]; refused: string[]; remove(): void } {
  const attempts: string[] = [];
  const refused: string[] = [];
  const original = Socket.prototype.connect;
  Socket.prototype.connect = function guardedConnect(this: Socket, ...args: any[]) {
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    if (typeof first === 'object' && first?.path) return original.apply(this, args as never);
    const host: string = (typeof first === 'object' ? first?.host : args[1]) ?? 'localhost';
    attempts.push(host);
    const family = isIP(host);
    if (family === 0 || !LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6')) {
      refused.push(host);
      process.nextTick(() => this.destroy(new Error(`test guard: no connection to ${host} (not loopback)`)));
      return this;
    }
    return original.apply(this, args as never);
  } as typeof original;
  return {
    attempts,
    refused,
    remove() {
      Socket.prototype.connect = original;
    },
  };
}

/** A self-signed certificate and key for `secure.fixture.test` (test use only; valid until 2126). */
export const TEST_TLS = {
  name: 'secure.fixture.test',
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgHqV5XT1kGklhtwl6
TOK+pvOaAvQxjDv2BdZiWKxAjQ+hRANCAARv92P0HZU/TyjDNLHsNt6OMuNorvkl
8A1+dKVhbcxe/eLwsPjAWHrDzK68P37lKqpphC1pvxqxovfna1whyEWH
-----END PRIVATE KEY-----
`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBsjCCAVmgAwIBAgIUS4FXLM5IOf8tKw+iTBccgnfgClQwCgYIKoZIzj0EAwIw
HjEcMBoGA1UEAwwTc2VjdXJlLmZpeHR1cmUudGVzdDAgFw0yNjExMjUwMjIyNDFa
GA8yMTI2MTEwMTAyMjI0MVowHjEcMBoGA1UEAwwTc2VjdXJlLmZpeHR1cmUudGVz
dDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABG/3Y/QdlT9PKMM0sew23o4y42iu
+SXwDX50pWFtzF794vCw+MBYesPMrrw/fuUqqmmELWm/GrGi9+drXCHIRYejczBx
MB0GA1UdDgQWBBRCQ2sKs4wPFdCrqBsbnQX40nfBrzAfBgNVHSMEGDAWgBRCQ2sK
s4wPFdCrqBsbnQX40nfBrzAPBgNVHRMBAf8EBTADAQH/MB4GA1UdEQQXMBWCE3Nl
Y3VyZS5maXh0dXJlLnRlc3QwCgYIKoZIzj0EAwIDRwAwRAIgJPkZ98VT4FqfYGVh
c34r7DdmEKoU3U7QfQ6pgirRi+UCIHJowDHOaK1uCvb2dP28fQi8wNdiX15URJKG
JMMrBIPk
-----END CERTIFICATE-----
`,
};
