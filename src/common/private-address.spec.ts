import { isPrivateAddress } from './private-address';

describe('isPrivateAddress', () => {
  it('refuses loopback, private, link-local, reserved and multicast ranges, IPv4-mapped ones too', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '198.18.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fd00::1', 'fe80::1', 'fe80::1%eth0', '::ffff:127.0.0.1']) {
      expect([address, isPrivateAddress(address)]).toEqual([address, true]);
    }
  });

  it('refuses every IPv6 spelling that carries a private IPv4 address: compatible, mapped in hex, translated, NAT64, 6to4', () => {
    for (const address of [
      '::7f00:1', // IPv4-compatible 127.0.0.1
      '::127.0.0.1',
      '::ffff:7f00:1', // IPv4-mapped, hex groups
      '::FFFF:A9FE:A9FE', // mapped 169.254.169.254, upper case
      '0:0:0:0:0:ffff:7f00:1',
      '::ffff:0:7f00:1', // IPv4-translated (SIIT)
      '::ffff:0:8.8.8.8', // translated: never a fetch destination
      '64:ff9b::7f00:1', // NAT64 well-known prefix, 127.0.0.1
      '64:ff9b::10.0.0.1',
      '64:ff9b:1::8.8.8.8', // NAT64 local-use prefix
      '2002:7f00:1::1', // 6to4 of 127.0.0.1
      '2002:a9fe:a9fe::', // 6to4 of 169.254.169.254
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
      '2001:db8::1', // documentation
      '100::1', // discard-only
      'fec0::1', // site-local
    ]) {
      expect([address, isPrivateAddress(address)]).toEqual([address, true]);
    }
  });

  it('lets public addresses through, public IPv4 behind NAT64 and 6to4 too, and counts anything else as private', () => {
    for (const address of ['93.184.216.34', '2606:4700::6810:85e5', '::ffff:8.8.8.8', '::ffff:808:808', '64:ff9b::8.8.8.8', '2002:808:808::1']) {
      expect([address, isPrivateAddress(address)]).toEqual([address, false]);
    }
    expect(isPrivateAddress('example.com')).toBe(true);
  });
});
