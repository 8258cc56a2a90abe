import { Inject, Injectable } from '@nestjs/common';
import { INGESTION_SETTINGS } from '../ingestion-settings';
import type { IngestionSettings } from '../ingestion-settings';
import { slices } from '../store';
import { ExtractionError } from './extraction';

const BATCH = 64;

export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** An OpenAI-compatible `POST /embeddings` client; absent configuration means full-text retrieval only. */
@Injectable()
export class EmbeddingProvider {
  constructor(@Inject(INGESTION_SETTINGS) private readonly settings: IngestionSettings) {}

  get configured(): boolean {
    return !!this.settings.embeddingUrl;
  }

  async embed(texts: string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (const input of slices(texts, BATCH)) {
      let response: Response;
      try {
        response = await fetch(`${this.settings.embeddingUrl}/embeddings`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(this.settings.embeddingApiKey ? { authorization: `Bearer ${this.settings.embeddingApiKey}` } : {}) },
          body: JSON.stringify({ model: this.settings.embeddingModel, input }),
          signal: AbortSignal.timeout(30_000),
        });
      } catch (error) {
        throw new ExtractionError(`Embedding provider unreachable: ${(error as Error).message}`);
      }
      if (!response.ok) throw new ExtractionError(`Embedding provider answered HTTP ${response.status}`);
      const body = (await response.json()) as { data?: { index: number; embedding: number[] }[] };
      const data = [...(body.data ?? [])].sort((a, b) => a.index - b.index);
      if (data.length !== input.length) throw new ExtractionError('Embedding provider returned a different number of vectors');
      out.push(...data.map((d) => d.embedding));
    }
    return out;
  }
}
