import { notifications } from '@mantine/notifications';

/**
 * How a change went, as a notification: green for done, red (with the reason, kept longer) for failed.
 * The close button is named and the reason reads in the text colour (Mantine dims it under a title).
 */
export function notify({ ok, title, message }: { ok: boolean; title?: string; message: string }): void {
  notifications.show({
    color: ok ? 'green' : 'red',
    title,
    message,
    autoClose: ok ? 4000 : 8000,
    closeButtonProps: { 'aria-label': 'Close notification' },
    styles: { description: { color: 'var(--mantine-color-text)' } },
  });
}
