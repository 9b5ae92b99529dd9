<?php
/**
 * Registering posts: on publish or update, in batches for a bulk import, and from a queue WP-Cron retries, so the
 * service being down never breaks publishing.
 *
 * @package Credence
 */

defined( 'ABSPATH' ) || exit;

final class Credence_Registration {
	const QUEUE = 'credence_queue';
	const CRON  = 'credence_retry_queue';
	const BATCH = 50;

	public static function init() {
		// Not transition_post_status: the REST API (the block editor's save, categories in the same request) publishes
		// the post before it saves its terms and meta, so a post registered then had no topic. wp_after_insert_post
		// fires once the terms and meta are saved, on every path (REST, the classic form, wp_insert_post, scheduled).
		add_action( 'wp_after_insert_post', array( __CLASS__, 'on_saved' ), 10, 2 );
		add_action( self::CRON, array( __CLASS__, 'drain' ) );
		if ( ! wp_next_scheduled( self::CRON ) ) {
			wp_schedule_event( time() + 60, 'credence_five_minutes', self::CRON );
		}
	}

	public static function schedules( $schedules ) {
		$schedules['credence_five_minutes'] = array(
			'interval' => 300,
			'display'  => __( 'Every five minutes', 'credence' ),
		);
		return $schedules;
	}

	public static function post_types() {
		$types = get_option( 'credence_post_types', array( 'post' ) );
		return is_array( $types ) ? $types : array( 'post' );
	}

	/** Publishing or updating a published post of a chosen type registers it, with its terms saved; nothing here may throw. */
	public static function on_saved( $post_id, $post ) {
		if ( ! $post || 'publish' !== $post->post_status || wp_is_post_revision( $post ) || ! in_array( $post->post_type, self::post_types(), true ) ) {
			return;
		}
		self::register_posts( array( $post->ID ) );
	}

	/** The topic: the first of the post's categories and tags that the publisher mapped to a Credence topic. */
	public static function topic_for( $post_id, array $map ) {
		foreach ( array( 'category', 'post_tag' ) as $taxonomy ) {
			$terms = get_the_terms( $post_id, $taxonomy );
			foreach ( is_array( $terms ) ? $terms : array() as $term ) {
				$key = $taxonomy . ':' . $term->slug;
				if ( ! empty( $map[ $key ] ) ) {
					return (string) $map[ $key ];
				}
			}
		}
		return null;
	}

	/**
	 * Credence usernames of the post's authors (the post's author, and co-authors by filter): only users whose link
	 * the person confirmed in Credence. A username typed into a profile names nobody until then.
	 */
	public static function authors_for( $post ) {
		$ids   = apply_filters( 'credence_post_author_ids', array( (int) $post->post_author ), $post );
		$names = array();
		foreach ( $ids as $id ) {
			$username = Credence_Links::confirmed_username( (int) $id );
			if ( '' !== $username ) {
				$names[] = strtolower( $username );
			}
		}
		return array_values( array_unique( $names ) );
	}

	/** The registration item of one post, as POST /api/v1/pages takes it. */
	public static function item_for( $post ) {
		$item  = array(
			'url'   => get_permalink( $post ),
			'title' => wp_strip_all_tags( get_the_title( $post ) ),
			'text'  => self::text_of( $post->post_content ),
		);
		$topic = self::topic_for( $post->ID, (array) get_option( 'credence_topic_map', array() ) );
		if ( null !== $topic ) {
			$item['topic'] = $topic;
		}
		$authors = self::authors_for( $post );
		if ( $authors ) {
			$item['authors'] = $authors;
		}
		return apply_filters( 'credence_registration_item', $item, $post );
	}

	/** The post's readable text: blocks and shortcodes rendered, tags removed, white space as one space. */
	public static function text_of( $content ) {
		$html = function_exists( 'do_blocks' ) ? do_blocks( $content ) : $content;
		$text = wp_strip_all_tags( strip_shortcodes( $html ), true );
		return trim( (string) preg_replace( '/\s+/u', ' ', html_entity_decode( $text, ENT_QUOTES, 'UTF-8' ) ) );
	}

	/**
	 * Register posts in one call; what cannot be sent now goes to the queue.
	 *
	 * @return true|WP_Error
	 */
	public static function register_posts( array $ids ) {
		$posts = array_values( array_filter( array_map( 'get_post', $ids ) ) );
		if ( ! $posts ) {
			return true;
		}
		$client = Credence_Client::from_options();
		if ( ! $client->configured() ) {
			return new WP_Error( 'credence_not_configured', __( 'Credence is not connected yet.', 'credence' ) );
		}
		$items = array_map( array( __CLASS__, 'item_for' ), $posts );
		$res   = $client->request( 'POST', '/pages', $items, array(), 15 );
		if ( is_wp_error( $res ) ) {
			$data = $res->get_error_data();
			if ( ! empty( $data['retry'] ) ) {
				self::enqueue( wp_list_pluck( $posts, 'ID' ) );
			}
			foreach ( $posts as $post ) {
				update_post_meta( $post->ID, '_credence_error', $res->get_error_message() );
			}
			return $res;
		}
		foreach ( (array) ( $res['data']['results'] ?? array() ) as $result ) {
			$post = $posts[ (int) $result['index'] ] ?? null;
			if ( ! $post ) {
				continue;
			}
			if ( 'failed' === $result['status'] ) {
				/* translators: %s: the service's explanation */
				update_post_meta( $post->ID, '_credence_error', sprintf( __( 'Credence did not register this post: %s', 'credence' ), $result['error']['message'] ?? '' ) );
				continue;
			}
			update_post_meta( $post->ID, '_credence_page_id', (int) $result['id'] );
			update_post_meta( $post->ID, '_credence_registered_at', time() );
			update_post_meta( $post->ID, '_credence_authors', $result['authors'] ?? array() );
			delete_post_meta( $post->ID, '_credence_error' );
			self::dequeue( array( $post->ID ) );
		}
		return true;
	}

	public static function enqueue( array $ids ) {
		$queue = array_map( 'intval', (array) get_option( self::QUEUE, array() ) );
		update_option( self::QUEUE, array_values( array_unique( array_merge( $queue, array_map( 'intval', $ids ) ) ) ), false );
	}

	public static function dequeue( array $ids ) {
		$queue = array_map( 'intval', (array) get_option( self::QUEUE, array() ) );
		update_option( self::QUEUE, array_values( array_diff( $queue, array_map( 'intval', $ids ) ) ), false );
	}

	/** WP-Cron: send what waits, in batches; a failure leaves it queued for the next run. */
	public static function drain() {
		$queue = array_map( 'intval', (array) get_option( self::QUEUE, array() ) );
		foreach ( array_chunk( $queue, self::BATCH ) as $chunk ) {
			if ( is_wp_error( self::register_posts( $chunk ) ) ) {
				return;
			}
		}
	}

	/**
	 * One step of the bulk import: the next batch of published posts after the last one sent. The cursor is kept in
	 * an option, so an import stopped halfway resumes where it was.
	 *
	 * @return array|WP_Error {done, total, sent}
	 */
	public static function import_step() {
		global $wpdb;
		$types        = self::post_types();
		$after        = (int) get_option( 'credence_import_cursor', 0 );
		$placeholders = implode( ',', array_fill( 0, count( $types ), '%s' ) );
		// phpcs:ignore WordPress.DB.PreparedSQLPlaceholders.UnfinishedPrepare
		$ids   = $wpdb->get_col( $wpdb->prepare( "SELECT ID FROM {$wpdb->posts} WHERE post_status = 'publish' AND post_type IN ($placeholders) AND ID > %d ORDER BY ID LIMIT %d", array_merge( $types, array( $after, self::BATCH ) ) ) );
		$total = (int) $wpdb->get_var( $wpdb->prepare( "SELECT COUNT(*) FROM {$wpdb->posts} WHERE post_status = 'publish' AND post_type IN ($placeholders)", $types ) );
		if ( ! $ids ) {
			return array( 'done' => true, 'total' => $total, 'sent' => $total );
		}
		$res = self::register_posts( array_map( 'intval', $ids ) );
		if ( is_wp_error( $res ) ) {
			return $res;
		}
		update_option( 'credence_import_cursor', (int) end( $ids ), false );
		$sent = (int) $wpdb->get_var( $wpdb->prepare( "SELECT COUNT(*) FROM {$wpdb->posts} WHERE post_status = 'publish' AND post_type IN ($placeholders) AND ID <= %d", array_merge( $types, array( (int) end( $ids ) ) ) ) );
		return array( 'done' => false, 'total' => $total, 'sent' => $sent );
	}
}
