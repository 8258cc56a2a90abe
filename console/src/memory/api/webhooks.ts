import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { memoryKeys } from './keys';

/** The webhook outbox (all of it, or about one document), polled every five seconds. */
const webhookDeliveriesQuery = (documentId: string | undefined) =>
  queryOptions({
    queryKey: memoryKeys.webhooks(documentId),
    queryFn: async () =>
      unwrap(
        await api.GET('/v3/webhooks/deliveries', { params: { query: documentId ? { documentId } : {} } }),
      ),
    refetchInterval: 5000,
  });

export const useWebhookDeliveries = (documentId: string | undefined) =>
  useQuery(webhookDeliveriesQuery(documentId));
