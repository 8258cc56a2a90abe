import { isPrivateAddress } from './private-address';

describe('isPrivateAddress', () => {
  it('refuses loopback, private, link-local, reserved and multicast ranges, IPv4-mapped ones too', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '198.18.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1']) {
      expect([address, isPrivateAddress(address)]).toEqual([address, true]);
    }
  });

  it('lets public addresses through, and counts anything else as private', () => {
    for (const address of ['93.184.216.34', '2606:4700::6810:85e5', '::ffff:8.8.8.8']) expect([address, isPrivateAddress(address)]).toEqual([address, false]);
    expect(isPrivateAddress('example.com')).toBe(true);
  });
});
