import { portFrom } from '../../demo/args';

test.each([
  [['--serve', '--port', '4011'], 4011],
  [['--serve', '--port=4011'], 4011],
  [['--port', '0'], 0],
  [['--serve'], 4010],
])('%j → port %i', (argv, port) => expect(portFrom(argv, 4010)).toBe(port));

test.each([[['--port']], [['--port', 'abc']], [['--port=70000']]])('%j is refused with a message naming --port', (argv) => {
  expect(() => portFrom(argv, 4010)).toThrow(/--port takes a port number/);
});
