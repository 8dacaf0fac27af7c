import { EVENT_LISTENER_DEFAULTS, type EventListenerConfig } from '../../config/event-listener-options';
import { installEventListener } from '../../core/event-listeners';
import { emailListener } from './email-listener';
import { jbossLoggingListener } from './logging-listener';

/**
 * Installs the event listeners a realm can name (`jboss-logging`, `email`; the ids of
 * EVENT_LISTENERS, which PUT validation and server info use) with the server's listener options.
 * Called when the app is built; installing again replaces them. Throws for an unknown event type
 * in the email options.
 */
export function installEventListeners(cfg: EventListenerConfig = EVENT_LISTENER_DEFAULTS): void {
  installEventListener('jboss-logging', jbossLoggingListener(cfg.jbossLogging));
  installEventListener('email', emailListener(cfg.email));
}
