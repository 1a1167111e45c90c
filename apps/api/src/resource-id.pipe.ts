import { PipeTransform } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { notFound } from '@ledger/platform';

/**
 * A resource id from the path. Every id the service issues is a UUID, so
 * anything else names nothing: 404 before any stream is read. Ids are
 * compared in lower case, the form the service issues them in.
 */
export class ResourceIdPipe implements PipeTransform<string, string> {
  constructor(private readonly what: string) {}

  transform(value: string): string {
    if (!isUUID(value)) throw notFound(this.what);
    return value.toLowerCase();
  }
}
