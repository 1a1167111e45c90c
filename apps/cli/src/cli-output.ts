/**
 * What a command prints on stdout and the status it exits with, when that is
 * not simply a JSON document and 0: `audit verify` prints its document and
 * exits 1 on a break; `audit replay --format text` prints a timeline.
 */
export class CliOutput {
  constructor(
    readonly stdout: string,
    readonly status = 0,
  ) {}

  static json(document: unknown, status = 0): CliOutput {
    return new CliOutput(JSON.stringify(document), status);
  }

  /** A command that already wrote its output (NDJSON, line by line) as it went: nothing more is printed. */
  static readonly streamed = new CliOutput('');
}
